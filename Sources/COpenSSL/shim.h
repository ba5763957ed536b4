// The parts of the system's OpenSSL (libcrypto, 3.x) that apple-id-mock uses: loading an RSA key
// from PEM and RSASSA-PKCS1-v1_5 signatures over a SHA-256 digest.
#ifndef APPLE_ID_MOCK_COPENSSL_SHIM_H
#define APPLE_ID_MOCK_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#endif
