import Foundation
import Testing

@testable import DBToolCore

/// The object store's XML answers, read without Foundation's XMLParser.
@Suite("XML answers")
struct XMLDocumentTests {
    @Test("a listing: nested elements, entities, character references, CDATA, comments and the declaration")
    func listing() throws {
        let text = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!-- a listing -->
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>backups</Name>
              <Contents><Key>a&amp;b/&lt;c&gt; &#233;&#x20AC;</Key><Size>12</Size></Contents>
              <Contents><Key><![CDATA[x<y>&z]]></Key><Size>0</Size><Owner/></Contents>
              <IsTruncated>false</IsTruncated>
            </ListBucketResult>
            """
        let root = try #require(XMLNode.parse(Data(text.utf8)))
        #expect(root.name == "ListBucketResult")
        #expect(root["Name"] == "backups")
        #expect(root.all("Contents").compactMap { $0["Key"] } == ["a&b/<c> é€", "x<y>&z"])
        #expect(root.all("Contents").compactMap { $0["Size"] } == ["12", "0"])
        #expect(root.all("Contents")[1].child("Owner")?.children.isEmpty == true)
        #expect(root["IsTruncated"] == "false")
    }

    @Test("an error answer, a prefixed name, attributes in either quotes")
    func agreesWithFoundation() throws {
        let documents = [
            "<Error><Code>NoSuchKey</Code><Message>The key &quot;x&apos;s&quot; does not exist</Message></Error>",
            "<s3:Result a='1' b=\"2>\"><s3:UploadId>abc</s3:UploadId></s3:Result>",
            "<?xml version='1.0'?>\n<InitiateMultipartUploadResult><UploadId>id-1</UploadId></InitiateMultipartUploadResult>\n",
        ]
        let roots = documents.map { XMLNode.parse(Data($0.utf8)) }
        #expect(roots[0]?["Message"] == "The key \"x's\" does not exist")
        #expect(roots[1]?.name == "s3:Result" && roots[1]?["s3:UploadId"] == "abc")
        #expect(roots[2]?["UploadId"] == "id-1")
    }

    @Test("anything not well formed, and any document type declaration, is nil")
    func refusals() {
        let refused = [
            "", "not xml", "<a>", "<a></b>", "<a></a><b></b>", "<a>&bogus;</a>", "<a>&#xD800;</a>", "<a>& b</a>",
            "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", "<a><!-- unclosed</a>", "<a b></a>", "<a b=c></a>", "<1a></1a>",
            "text<a></a>", "<a></a>trailing", "<a><![CDATA[x</a>",
        ]
        for text in refused {
            #expect(XMLNode.parse(Data(text.utf8)) == nil, "\(text)")
        }
    }
}
