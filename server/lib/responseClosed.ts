/**
 * What runs when a response is over (the in-flight count, the access log, the metrics), behind one 'close'
 * listener per response. Each used to add its own; with the GraphQL adapter's and those Node's stream pipeline adds
 * for a compressed body, a response reached 11 — past EventEmitter's warning threshold of 10, so every such response
 * printed a MaxListenersExceededWarning (hundreds per test run), a warning that would hide a real leak. Hooks run in
 * the order they were added.
 */
import type { ServerResponse } from 'node:http';

const HOOKS = Symbol('responseClosedHooks');

type WithHooks = ServerResponse & { [HOOKS]?: Array<() => void> };

export function onResponseClosed(res: ServerResponse, hook: () => void): void {
  const holder = res as WithHooks;
  const hooks = holder[HOOKS];
  if (hooks) {
    hooks.push(hook);
    return;
  }
  const first: Array<() => void> = [hook];
  holder[HOOKS] = first;
  res.once('close', () => {
    for (const run of first) run();
  });
}
