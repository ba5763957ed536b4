import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension BundledAsset {
    /// The asset as Apple's CDN (`appleid.cdn-apple.com`) serves its files: cacheable for five
    /// minutes (short enough that a new mock version reaches pages soon) and revalidated by the ETag
    /// (`304` when `If-None-Match` names it), open to every origin.
    func cdnResponse(to request: Request) -> Response {
        var headers: HTTPFields = [
            .contentType: contentType,
            .cacheControl: "public, max-age=300",
            .eTag: etag,
            .accessControlAllowOrigin: "*",
            .xContentTypeOptions: "nosniff",
            .init("Cross-Origin-Resource-Policy")!: "cross-origin",
        ]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: {
            $0.trimmingWhitespace() == etag
        }) == true {
            headers[.contentLength] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}
