// What the tests of the state's stores share: a state read back from its snapshot body, and the checks their properties make.
import { readState, stateBodySync, type State } from '../../lib/record/fold/index.js';

/** Restores `state` from its snapshot body. */
export function restore(state: State): State {
  const back = readState(Buffer.concat(stateBodySync(state)), state.size);
  if ('problem' in back) throw new Error(back.problem);
  return back;
}

/** Equal as JSON: the same members in the same order. */
export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Whether `f` throws. */
export const throws = (f: () => unknown): boolean => {
  try {
    f();
    return false;
  } catch {
    return true;
  }
};
