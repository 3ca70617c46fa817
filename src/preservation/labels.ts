// Kubernetes label validation (k8s.io/apimachinery/pkg/util/validation: IsValidLabelValue,
// IsQualifiedName, IsDNS1123Subdomain) with the same messages. Hand-written: @kubernetes/client-node
// ships no validation, and these few rules must give the API server's exact wording.

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;

const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

const QUALIFIED_NAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** validation.RegexError (its double spaces between examples included). */
function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  return `${message} (e.g. ${examples.map((example) => `'${example}', `).join(' or ')}regex used for validation is '${format}')`;
}

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** Go's len(): bytes of the UTF-8 encoding. */
function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** IsValidLabelValue: ≤ 63 bytes of [A-Za-z0-9._-], alphanumeric at both ends; empty is valid. */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLenError(63));
  if (!LABEL_VALUE.test(value)) errors.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errors;
}

function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 253) errors.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) errors.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errors;
}

/** IsQualifiedName: an optional DNS-subdomain prefix and "/", then a name of ≤ 63 characters. */
export function qualifiedNameErrors(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else errors.push(...dns1123SubdomainErrors(prefix).map((message) => `prefix part ${message}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (byteLength(name) > 63) errors.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME.test(name)) {
    errors.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errors;
}
