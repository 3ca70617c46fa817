// XlineCluster of the Go operator (xline.io.datenlord.com/v1alpha1). The operations shared with the Rust
// operator's API live in interpreters/shared/xline-cluster/; what is particular to this operator is the
// XlineApi row in go-operator.ts. README.md explains each choice.
import { xlineClusterInterpreter } from '../../../shared/xline-cluster/interpreter.ts';
import { goOperator } from './go-operator.ts';

export const goXlineClusterInterpreter = xlineClusterInterpreter(goOperator);

export default goXlineClusterInterpreter;
