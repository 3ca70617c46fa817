/** The template does not parse; the message is client-go's parser message. */
export class JsonPathParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathParseError';
  }
}

/** The template parsed but failed on the data; the message is client-go's execution message. */
export class JsonPathExecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathExecError';
  }
}
