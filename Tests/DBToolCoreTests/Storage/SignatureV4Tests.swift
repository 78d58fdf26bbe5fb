import Testing

@testable import DBToolCore

/// dbtool's SigV4 signer against AWS's published test suite, and the
/// header order libcurl's signer got wrong.
@Suite("Signature V4")
struct SignatureV4Tests {
    let signer = SignatureV4(
        region: "us-east-1", service: "service", accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    /// 2015-08-30T12:36:00Z, the date of AWS's test suite.
    let time = 1_440_938_160

    @Test("get-vanilla and get-vanilla-query-order-key-case of AWS's test suite")
    func awsTestSuite() {
        let vanilla = signer.headers(for: HTTPRequest(method: "GET", url: "https://example.amazonaws.com/"), time: time)
        #expect(
            vanilla == [
                "x-amz-date: 20150830T123600Z",
                "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
            ])
        let query = signer.headers(for: HTTPRequest(method: "GET", url: "https://example.amazonaws.com/?Param2=value2&Param1=value1"), time: time)
        #expect(query.last?.hasSuffix("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500") == true, "\(query)")
    }

    @Test("headers are signed in the order of their names, one whose name extends another's after it")
    func headerOrder() {
        let request = HTTPRequest(
            method: "PUT", url: "http://127.0.0.1:9000/bucket/key",
            headers: ["x-amz-server-side-encryption-aws-kms-key-id: k", "x-amz-server-side-encryption: aws:kms", "x-amz-content-sha256: UNSIGNED-PAYLOAD"])
        let authorization = signer.headers(for: request, time: time).last ?? ""
        #expect(
            authorization.contains(
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-server-side-encryption;x-amz-server-side-encryption-aws-kms-key-id,"),
            "\(authorization)")
        #expect(SignatureV4.parts(of: "http://127.0.0.1:9000/bucket/a%20b?uploads=&x=1").host == "127.0.0.1:9000")
        #expect(SignatureV4.parts(of: "http://127.0.0.1:9000").path == "/")
        #expect(SignatureV4.canonicalQuery("b=2&uploads&a=1") == "a=1&b=2&uploads=")
    }
}
