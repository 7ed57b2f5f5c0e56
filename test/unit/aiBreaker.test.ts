/**
 * The model's circuit breaker on its own, with a clock the test moves: opening after consecutive failures,
 * refusing while open, one probe at a time when half-open (the others waiting for its outcome), the cool-off
 * doubling while probes fail and resetting on success, and the aiBreakerState gauge.
 */
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../server/ai/breaker.ts';
import { aiBreakerState } from '../../server/observability/metrics.ts';

function breaker() {
  let now = 0;
  const b = new CircuitBreaker({ threshold: 3, cooldownMs: 1_000, maxCooldownMs: 4_000, now: () => now });
  return { b, advance: (ms: number) => (now += ms) };
}

const gauge = async () => (await aiBreakerState.get()).values[0]?.value;

function fail(b: CircuitBreaker, times: number) {
  for (let i = 0; i < times; i++) {
    const permit = b.tryAcquire();
    if (permit) b.onFailure(permit);
  }
}

describe('circuit breaker', () => {
  it('opens after `threshold` failures in a row, and a success in between resets the count', async () => {
    const { b } = breaker();
    fail(b, 2);
    const ok = b.tryAcquire()!;
    b.onSuccess(ok);
    fail(b, 2);
    expect(b.state).toBe('closed');
    fail(b, 1);
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBeNull();
    expect(await gauge()).toBe(2);
  });

  it('lets one probe through after the cool-off; others wait for its outcome', async () => {
    const { b, advance } = breaker();
    fail(b, 3);
    advance(999);
    expect(b.tryAcquire()).toBeNull();
    advance(1);
    expect(b.state).toBe('half_open');
    const probe = b.tryAcquire()!;
    expect(probe.probe).toBe(true);
    expect(await gauge()).toBe(1);
    expect(b.tryAcquire()).toBeNull();
    let waited = false;
    const waiting = b.waitForProbe().then(() => {
      waited = true;
    });
    await Promise.resolve();
    expect(waited).toBe(false);
    b.onSuccess(probe);
    await waiting;
    expect(b.state).toBe('closed');
    expect(b.tryAcquire()).toEqual({ probe: false });
    expect(await gauge()).toBe(0);
  });

  it('doubles the cool-off while probes fail, up to the maximum, and resets it once one succeeds', () => {
    const { b, advance } = breaker();
    fail(b, 3);
    for (const expected of [2_000, 4_000, 4_000]) {
      advance(b.cooldownMs);
      const probe = b.tryAcquire()!;
      b.onFailure(probe);
      expect(b.state).toBe('open');
      expect(b.cooldownMs).toBe(expected);
      advance(expected - 1);
      expect(b.tryAcquire()).toBeNull();
      advance(1);
      expect(b.state).toBe('half_open');
    }
    advance(b.cooldownMs);
    b.onSuccess(b.tryAcquire()!);
    expect(b.cooldownMs).toBe(1_000);
    fail(b, 3);
    expect(b.state).toBe('open');
  });

  it('ignores failures of attempts that went out before it opened', () => {
    const { b, advance } = breaker();
    const late = [b.tryAcquire()!, b.tryAcquire()!, b.tryAcquire()!, b.tryAcquire()!];
    for (const permit of late.slice(0, 3)) b.onFailure(permit);
    expect(b.state).toBe('open');
    b.onFailure(late[3]!);
    expect(b.cooldownMs).toBe(1_000);
    advance(1_000);
    expect(b.state).toBe('half_open');
  });

  it('frees the probe when its attempt is aborted for a reason of ours', () => {
    const { b, advance } = breaker();
    fail(b, 3);
    advance(1_000);
    b.release(b.tryAcquire()!);
    expect(b.tryAcquire()?.probe).toBe(true);
  });
});
