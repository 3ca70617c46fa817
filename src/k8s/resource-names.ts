// Resource-name classes Karmada's scheduler understands (pkg/util/lifted/corev1helpers.go and
// resourcename.go, lifted from Kubernetes pkg/apis/core/v1/helper). Names outside these classes are
// dropped from replica requirements, exactly as util.Resource does.

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** apimachinery validation.IsQualifiedName: `[prefix/]name`, prefix a DNS-1123 subdomain, name <= 63. */
export function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** IsPrefixedNativeResource: anything in a *kubernetes.io/ namespace. */
export function isPrefixedNativeResource(name: string): boolean {
  return name.includes('kubernetes.io/');
}

/** IsNativeResource: unprefixed names are implicitly kubernetes.io ones. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || isPrefixedNativeResource(name);
}

/** IsHugePageResourceName. */
export function isHugePageResourceName(name: string): boolean {
  return name.startsWith('hugepages-');
}

/** IsAttachableVolumeResourceName. */
export function isAttachableVolumeResourceName(name: string): boolean {
  return name.startsWith('attachable-volumes-');
}

/** IsExtendedResourceName: `domain/name` outside kubernetes.io, valid as a quota name `requests.<name>`. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`);
}

/** IsScalarResourceName: extended, hugepages, prefixed native or attachable-volume resources. */
export function isScalarResourceName(name: string): boolean {
  return isExtendedResourceName(name) || isHugePageResourceName(name) || isPrefixedNativeResource(name) || isAttachableVolumeResourceName(name);
}
