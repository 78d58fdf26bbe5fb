import ArgumentParser
import DBToolCore

/// The options of every command that reads or writes `s3://` locations.
struct ObjectStoreArguments: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile's endpoint_url, else AWS).",
            valueName: "url"))
    var endpoint: String?

    @Option(name: .long, help: "The bucket's region (default: $AWS_REGION, the profile's, else us-east-1).")
    var region: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).",
            valueName: "name"))
    var profile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile's ca_bundle).",
            valueName: "file"),
        completion: .file(), transform: nonEmptyPath)
    var caBundle: String?

    @Flag(name: .long, help: "Allow a plain http:// endpoint that is not on loopback.")
    var allowInsecureEndpoint = false

    @Option(
        name: .long, parsing: .unconditional,
        help: "Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).")
    var retries: Int = ObjectStoreOptions.defaultRetries

    func validate() throws {
        if !(0...20).contains(retries) { throw ValidationError("--retries must be from 0 to 20 (got \(retries))") }
    }

    /// The options, over the AWS environment variables.
    var options: ObjectStoreOptions {
        var options = ObjectStoreOptions()
        options.endpoint = endpoint
        options.region = region
        options.profile = profile
        options.caBundle = caBundle
        options.allowInsecureEndpoint = allowInsecureEndpoint
        options.retries = retries
        return options
    }
}
