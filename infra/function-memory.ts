/**
 * The memory each API function is deployed with (MB): the API's route functions, the authorizer
 * and the catch-all. The values in function-memory.json are chosen by the bench's cost section
 * from measurements (`npm run bench -- --only=cost --save-memory`: per function the cheapest
 * setting whose modelled p99 stays within its budget, docs/cost.md), reviewed and committed like
 * code. A function the cost workloads do not exercise gets the setting chosen most often for its
 * kind (reads: GET routes; writes: the others). Jobs and stream consumers keep their own settings
 * (infra/aws/jobs.ts, function.ts).
 */
import { readFileSync } from 'node:fs';

export interface FunctionMemory {
  /** How and when the values were chosen (the bench run that wrote them). */
  chosenBy: string;
  /** For functions the workloads do not exercise. */
  default: { read: number; write: number };
  /** Per function name (a route's declaration name, `authorizer`, `catch-all`). */
  functions: Record<string, number>;
}

export const FUNCTION_MEMORY_FILE = new URL('./function-memory.json', import.meta.url);

export const FUNCTION_MEMORY: FunctionMemory = JSON.parse(readFileSync(FUNCTION_MEMORY_FILE, 'utf8')) as FunctionMemory;

/** The memory of an API function: its measured setting, else its kind's default. */
export function functionMemory(name: string, kind: 'read' | 'write'): number {
  return FUNCTION_MEMORY.functions[name] ?? FUNCTION_MEMORY.default[kind];
}
