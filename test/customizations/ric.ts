// A one-document customization file's text for the customization tests: kind `name` of example.io/v1 with
// `script` as its health interpretation.
import { stringify } from 'yaml';

export const ric = (name: string, script: string) =>
  stringify({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name },
    spec: { target: { apiVersion: 'example.io/v1', kind: name }, customizations: { healthInterpretation: { luaScript: script } } },
  });
