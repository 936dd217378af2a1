// Run by dispatch-code.test.ts with code generation forbidden: prints whether generated bodies are in
// use and the dispatch scenario's results, as one JSON line.
import { codeGenerationInUse } from '../../../runtime-probe/src/bus/dispatch-code';
import { scenario } from './dispatch-scenario';

const results = scenario();
console.log(JSON.stringify({ generation: codeGenerationInUse(), results }));
