// Digests, from swift-crypto, as the protocols spell them: base64 of SHA-256 (ETags) and of
// SHA-1 (the SDKs' node hashes).
import Crypto
import Foundation

/// Base64 of the SHA-256 digest of `bytes`: a value's ETag changes whenever its bytes do.
func sha256Base64(_ bytes: [UInt8]) -> String {
    Data(SHA256.hash(data: bytes)).base64EncodedString()
}

/// Base64 of the SHA-1 digest of `bytes` (the client SDKs' hash; not for secrets).
func sha1Base64(_ bytes: [UInt8]) -> String {
    Data(Insecure.SHA1.hash(data: bytes)).base64EncodedString()
}
