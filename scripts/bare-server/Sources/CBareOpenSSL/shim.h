// What the bare server uses of OpenSSL: a PEM key and RSASSA-PKCS1-v1_5 over SHA-256.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
