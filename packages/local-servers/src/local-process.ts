// Server processes started in the background with their pid in a file, so that whoever started them
// (a test run, scripts/up) and whoever stops them (its teardown, scripts/down) need not be the same.

import { spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

export interface StartedProcess {
  pid: number
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** starts `command` detached, its output appended to `logFile`, its pid written to `pidFile` */
export function startDetached(options: {
  command: string
  args: string[]
  logFile: string
  pidFile: string
  env?: NodeJS.ProcessEnv
  cwd?: string
}): StartedProcess {
  const log = openSync(options.logFile, 'a')
  try {
    const child = spawn(options.command, options.args, {
      detached: true,
      stdio: ['ignore', log, log],
      env: options.env ?? process.env,
      cwd: options.cwd,
    })
    if (child.pid === undefined) throw new Error(`could not start ${options.command}`)
    child.unref()
    writeFileSync(options.pidFile, `${child.pid}\n`)
    return { pid: child.pid }
  } finally {
    closeSync(log)
  }
}

export function readPid(pidFile: string): number | null {
  if (!existsSync(pidFile)) return null
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10)
  return Number.isInteger(pid) && pid > 0 ? pid : null
}

/**
 * Sends `signal` to the process in `pidFile` and waits until it is gone (SIGKILL after `graceMs`);
 * removes the pid file. Does nothing when no such process runs.
 */
export async function stopPidFile(pidFile: string, signal: NodeJS.Signals = 'SIGTERM', graceMs = 30_000) {
  const pid = readPid(pidFile)
  if (pid !== null && isAlive(pid)) {
    process.kill(pid, signal)
    const deadline = Date.now() + graceMs
    while (isAlive(pid)) {
      if (Date.now() > deadline) {
        process.kill(pid, 'SIGKILL')
        break
      }
      await sleep(100)
    }
    while (isAlive(pid)) await sleep(50)
  }
  rmSync(pidFile, { force: true })
}

/** polls `check` until it returns true; throws with `describe()` after `timeoutMs` */
export async function waitUntil(
  check: () => Promise<boolean>,
  options: {
    timeoutMs: number
    intervalMs?: number
    describe: () => string
    /** stops waiting at once when true (the process exited) */
    giveUpIf?: () => boolean
  },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    if (await check().catch(() => false)) return
    if (options.giveUpIf?.() || Date.now() > deadline) throw new Error(options.describe())
    await sleep(options.intervalMs ?? 200)
  }
}

export function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return `(no ${file})`
  return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')
}
