/** The template does not parse; the message is client-go's parser message. */
export class JsonPathParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathParseError';
  }
}

/** The template parsed but failed on the data; the message is client-go's execution message. */
export class JsonPathExecError extends Error {
  /**
   * Set when `*` or `..` had walked a map with several keys before the failure: Go visits map entries
   * in random order, so Karmada may fail on another entry, with another message, or not at all.
   */
  mapOrderDependent = false;

  constructor(message: string) {
    super(message);
    this.name = 'JsonPathExecError';
  }
}
