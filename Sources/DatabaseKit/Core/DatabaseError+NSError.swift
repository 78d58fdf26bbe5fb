#if FoundationBridging
    import Foundation

    // NSError bridging, as GRDB gives it (behind the trait: it links the part
    // of Foundation that carries ICU).

    extension DatabaseError: CustomNSError {
        /// "GRDB.DatabaseError", as GRDB names the domain.
        public static var errorDomain: String { "GRDB.DatabaseError" }

        /// The extended result code.
        public var errorCode: Int { Int(extendedResultCode.rawValue) }

        /// The description, and the message as the failure reason.
        public var errorUserInfo: [String: Any] {
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
            if let message { userInfo[NSLocalizedFailureReasonErrorKey] = message }
            return userInfo
        }
    }
#endif
