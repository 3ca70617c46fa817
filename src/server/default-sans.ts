// The names every generated self-signed serving certificate carries; --tls-san adds to them. Its own
// module so the certificate generator (run on a worker) and the store share it without importing each other.
export const DEFAULT_SANS: readonly string[] = ['localhost', '127.0.0.1', '::1'];
