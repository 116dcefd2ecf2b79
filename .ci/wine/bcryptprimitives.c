/* Stand-in for bcryptprimitives.dll, which Wine 8.0 (Debian bookworm) lacks
 * but Go >= 1.22's Windows runtime loads for ProcessPrng. Forwards to
 * advapi32's RtlGenRandom (SystemFunction036). Test harness only. */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE buf, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(buf, n)) return FALSE;
        buf += n; len -= n;
    }
    return TRUE;
}
