// XlineCluster of the earlier Rust operator (xlineoperator.xline.cloud/v1alpha1). The operations shared
// with the Go operator's API live in interpreters/shared/xline-cluster/; what is particular to this
// operator is the XlineApi row in rust-operator.ts. README.md explains each choice.
import { xlineClusterInterpreter } from '../../../shared/xline-cluster/interpreter.ts';
import { rustOperator } from './rust-operator.ts';

export const rustXlineClusterInterpreter = xlineClusterInterpreter(rustOperator);

export default rustXlineClusterInterpreter;
