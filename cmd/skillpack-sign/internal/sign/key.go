package sign

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// Password variables for an encrypted --key, in the order they are read.
const (
	PasswordEnv       = "SKILLPACK_KEY_PASSWORD"
	CosignPasswordEnv = "COSIGN_PASSWORD"
)

// ed25519Refusal says why Ed25519 keys are refused, and what to use instead.
const ed25519Refusal = "Ed25519 keys are not supported: a pure Ed25519 signature cannot be verified " +
	"from the sha256 digest the indexes record, and cosign rejects the pre-hashed Ed25519ph variant; " +
	"use an ECDSA P-256 key (cosign generate-key-pair, or " +
	"openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)"

// keyPair is an ECDSA key that always signs the SHA-256 digest of the
// message, whatever its curve. sigstore-go's defaults would sign with
// SHA-384 on P-384, and then the bundle's message digest could no longer
// be checked against the sha256 digest every index records. Verifiers
// accept P-384 with SHA-256 (cosign signed that way for years).
type keyPair struct {
	priv *ecdsa.PrivateKey
	hint []byte
}

func newKeyPair(priv *ecdsa.PrivateKey) (*keyPair, error) {
	der, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	return &keyPair{priv: priv, hint: []byte(base64.StdEncoding.EncodeToString(sum[:]))}, nil
}

func (k *keyPair) GetHashAlgorithm() protocommon.HashAlgorithm {
	return protocommon.HashAlgorithm_SHA2_256
}

func (k *keyPair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	if k.priv.Curve == elliptic.P384() {
		return protocommon.PublicKeyDetails_PKIX_ECDSA_P384_SHA_256 //nolint:staticcheck // SHA-256 on purpose, see keyPair
	}
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}

func (k *keyPair) GetHint() []byte                { return k.hint }
func (k *keyPair) GetKeyAlgorithm() string        { return "ECDSA" }
func (k *keyPair) GetPublicKey() crypto.PublicKey { return k.priv.Public() }

func (k *keyPair) GetPublicKeyPem() (string, error) {
	b, err := cryptoutils.MarshalPublicKeyToPEM(k.priv.Public())
	return string(b), err
}

// SignData returns the signature over data's SHA-256 digest, and the digest.
func (k *keyPair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	sum := sha256.Sum256(data)
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, sum[:])
	return sig, sum[:], err
}

// encryptedTypes are the PEM types of password-protected keys that
// cryptoutils decrypts: encrypted PKCS#8 (PBES2, as openssl writes it) and
// cosign's own scrypt/secretbox format. Legacy "Proc-Type: 4,ENCRYPTED"
// PEM is recognised by its headers.
var encryptedTypes = map[string]bool{
	"ENCRYPTED PRIVATE KEY":          true,
	"ENCRYPTED SIGSTORE PRIVATE KEY": true,
	"ENCRYPTED COSIGN PRIVATE KEY":   true,
}

// loadKey reads an ECDSA P-256 or P-384 private key from a PEM file:
// PKCS#8, SEC 1 ("EC PRIVATE KEY"), encrypted PKCS#8, legacy encrypted PEM,
// or a cosign key (cosign generate-key-pair). The password of an encrypted
// key comes from SKILLPACK_KEY_PASSWORD, else COSIGN_PASSWORD; an unset
// password is tried as empty, as cosign does.
func loadKey(path string, env func(string) string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s: not a PEM private key (want an ECDSA P-256 or P-384 key in PEM)", path)
	}
	encrypted := encryptedTypes[block.Type] || x509.IsEncryptedPEMBlock(block) //nolint:staticcheck // legacy PEM encryption is still in use
	pwVar, pw := PasswordEnv, env(PasswordEnv)
	if pw == "" && env(CosignPasswordEnv) != "" {
		pwVar, pw = CosignPasswordEnv, env(CosignPasswordEnv)
	}
	key, err := cryptoutils.UnmarshalPEMToPrivateKey(data, cryptoutils.StaticPasswordFunc([]byte(pw)))
	switch {
	case err != nil && encrypted && pw == "":
		return nil, fmt.Errorf("%s: the key is encrypted: set %s (or %s) to its password", path, PasswordEnv, CosignPasswordEnv)
	case err != nil && encrypted:
		return nil, fmt.Errorf("%s: cannot decrypt the key with the password in %s: %w", path, pwVar, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pub := crypto.PublicKey(key)
	if signer, ok := key.(crypto.Signer); ok {
		pub = signer.Public()
	}
	if _, err := checkKey(path, pub); err != nil {
		return nil, err
	}
	return key.(*ecdsa.PrivateKey), nil
}

// loadPublicKey reads the ECDSA public key a key-signed bundle is checked
// with.
func loadPublicKey(path string) (*ecdsa.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a PEM public key: %w", path, err)
	}
	return checkKey(path, pub)
}

// checkKey keeps ECDSA P-256 and P-384 keys and explains the rest, given
// the public key (or a private key's public half).
func checkKey(path string, pub crypto.PublicKey) (*ecdsa.PublicKey, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() && k.Curve != elliptic.P384() {
			return nil, fmt.Errorf("%s: ECDSA %s keys are not supported: use P-256 or P-384", path, k.Curve.Params().Name)
		}
		return k, nil
	case ed25519.PublicKey:
		return nil, fmt.Errorf("%s: %s", path, ed25519Refusal)
	case *rsa.PublicKey:
		return nil, fmt.Errorf("%s: RSA keys are not supported: use an ECDSA P-256 or P-384 key", path)
	}
	return nil, fmt.Errorf("%s: %T keys are not supported: use an ECDSA P-256 or P-384 key", path, pub)
}
