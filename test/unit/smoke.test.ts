import { describe, expect, it } from 'vitest';
import { SHEET_TYPES } from '../../worker/types.ts';

describe('toolchain', () => {
  it('runs on Node 24 with TypeScript imports', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(SHEET_TYPES).toContain('cash_flow');
  });
});
