/* git.exe for the Wine run of .ci/wine/run: Wine has no Windows git and
 * cannot wait on a Linux one. It answers what skill/gitindex.go asks,
 * `git -C DIR -c core.fsmonitor=false ls-files --stage -z`, with DIR\.git\stage, which run wrote
 * beforehand with the real git; anything else fails, as a missing git. */
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 8 || strcmp(argv[1], "-C") || strcmp(argv[3], "-c") ||
        strcmp(argv[4], "core.fsmonitor=false") || strcmp(argv[5], "ls-files") ||
        strcmp(argv[6], "--stage") || strcmp(argv[7], "-z"))
        return 1;
    char p[4096];
    snprintf(p, sizeof p, "%s\\.git\\stage", argv[2]);
    FILE *f = fopen(p, "rb");
    if (!f)
        return 128;
    _setmode(_fileno(stdout), _O_BINARY);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    return 0;
}
