#!/usr/bin/env bash
# Makes the test TLS files of keys/tls/ (public by design, see keys/README.md):
#   ca.pem                             a test certificate authority, name-constrained to the DNS
#                                      names appleid.apple.com, appleid.cdn-apple.com and localhost
#                                      (and their subdomains)
#   appleid.apple.com.pem, -key.pem    the server's certificate for appleid.apple.com,
#                                      appleid.cdn-apple.com (where pages load Sign in with Apple JS
#                                      from), localhost, 127.0.0.1 and ::1, signed by that CA, valid 825 days
#                                      (Apple's platforms refuse longer server certificates)
#
# The CA's private key is thrown away once the certificate is signed: nobody, us included, can
# sign anything else with the CA that users trust. Running this again makes a new CA, so everyone
# trusting the old ca.pem must then trust the new one. (IP-address name constraints would bound
# the CA further, but BoringSSL, under swift-nio-ssl and others, refuses every certificate below a
# CA that has them.)
set -euo pipefail

cd "$(dirname "$0")/../keys/tls"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/ca.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
x509_extensions = ca
[dn]
O = apple-id-mock
CN = apple-id-mock test CA (public: trust only in tests)
[ca]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
nameConstraints = critical, permitted;DNS:appleid.apple.com, permitted;DNS:appleid.cdn-apple.com, permitted;DNS:localhost
CNF
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/ca-key.pem" 2>/dev/null
openssl req -new -x509 -key "$WORK/ca-key.pem" -sha256 -days 7300 -config "$WORK/ca.cnf" -out ca.pem

cat >"$WORK/leaf.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
O = apple-id-mock
CN = appleid.apple.com
[leaf]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = DNS:appleid.apple.com, DNS:appleid.cdn-apple.com, DNS:localhost, IP:127.0.0.1, IP:0:0:0:0:0:0:0:1
CNF
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out appleid.apple.com-key.pem 2>/dev/null
chmod 644 appleid.apple.com-key.pem
openssl req -new -key appleid.apple.com-key.pem -config "$WORK/leaf.cnf" -out "$WORK/leaf.csr"
openssl x509 -req -in "$WORK/leaf.csr" -CA ca.pem -CAkey "$WORK/ca-key.pem" -sha256 -days 825 \
    -set_serial "0x$(openssl rand -hex 16)" -extfile "$WORK/leaf.cnf" -extensions leaf \
    -out appleid.apple.com.pem 2>/dev/null
rm -f ca-key.pem
openssl verify -CAfile ca.pem appleid.apple.com.pem
openssl x509 -in appleid.apple.com.pem -noout -subject -enddate -ext subjectAltName
