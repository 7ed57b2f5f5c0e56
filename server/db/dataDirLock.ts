/**
 * PGlite admits one process per data directory: a second one would corrupt it. The first process writes
 * its pid to DATA_DIR/pglite.lock; another process finds that pid alive and refuses to start.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface DataDirLock {
  release(): void;
}

export class DataDirBusyError extends Error {
  readonly pid: number;
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid} (probably the running server). ` +
        'PGlite admits one process at a time: stop the server first, or set DATABASE_URL to use PostgreSQL.',
    );
    this.pid = pid;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new DataDirBusyError(dataDir, pid);
      }
      // A stale lock from a process that died: take it over.
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock ${path}`);
}
