/// Basic authentication (RFC 7617): `Basic base64(user ":" password)`, UTF-8.
public enum BasicCredentials {
    public static func authorization(user: String, password: String) -> String {
        "Basic " + Base64.encode(Array((user + ":" + password).utf8))
    }
}
