// Where the Karmada conformance tests find Karmada's own cases: a tree laid out like karmada-io/karmada
// pkg/resourceinterpreter/default/thirdparty/resourcecustomizations (group/version/Kind/testdata).
// KARMADA_CONFORMANCE_DIR names it; without it, the team's checkout next to this repository is tried.
// When neither exists the tests say so in their names and on stderr instead of passing silently.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

export const conformanceCorpus: string = process.env.KARMADA_CONFORMANCE_DIR ?? join(repositoryRoot, '..', 'shared', 'conformance', 'karmada');

export const haveConformanceCorpus: boolean = existsSync(conformanceCorpus);

export const MISSING_CORPUS = `Karmada's conformance cases not found at ${conformanceCorpus}: set KARMADA_CONFORMANCE_DIR to karmada-io/karmada's pkg/resourceinterpreter/default/thirdparty/resourcecustomizations`;

if (!haveConformanceCorpus) process.stderr.write(`warning: ${MISSING_CORPUS}\n`);

/** The testdata folder of one kind in the corpus, e.g. kindTestdata('argoproj.io/v1alpha1/Workflow'). */
export const kindTestdata = (kindPath: string): string => join(conformanceCorpus, kindPath, 'testdata');
