// At most a few five-service clusters at a time in one test run. The test files run side by side
// (vitest.config.ts), and each cluster is five services that, with the rest of a run, starve each
// other of CPU beyond a couple at once: slower, not sooner. A slot is a file in the temporary
// directory, created exclusively and removed when the cluster is destroyed.

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { inject } from 'vitest'

declare module 'vitest' {
  export interface ProvidedContext {
    /** set by vitest.config.ts: this run's id and how many clusters may run at once */
    clusterSlots: { runId: string; count: number }
  }
}

export interface ClusterSlot {
  release(): void
}

const POLL_MS = 250

/** waits for one of the run's slots; a run that sets none has no limit */
export async function takeClusterSlot(): Promise<ClusterSlot> {
  const slots = inject('clusterSlots')
  if (!slots) return { release: () => {} }
  for (;;) {
    for (let index = 0; index < slots.count; index++) {
      const file = join(tmpdir(), `chainpay-cluster-slot-${slots.runId}-${index}`)
      if (tryToTake(file)) {
        let held = true
        // once: a second release would remove the slot someone else has taken since
        return {
          release: () => {
            if (held) rmSync(file, { force: true })
            held = false
          },
        }
      }
    }
    await sleep(POLL_MS)
  }
}

function tryToTake(file: string): boolean {
  try {
    const descriptor = openSync(file, 'wx')
    writeSync(descriptor, String(process.pid))
    closeSync(descriptor)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  // a holder that died without releasing (its worker killed) leaves its file behind: it is free
  const holder = Number(readFileSync(file, 'utf8'))
  if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) rmSync(file, { force: true })
  return false
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
