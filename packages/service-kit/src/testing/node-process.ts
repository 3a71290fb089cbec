// Runs a deployable's build (its dist/main.js) as a child process, the way an operator runs it, so
// that a test exercises start-up, kill -9, restarts and SIGTERM exactly as they happen.

import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'

export interface NodeProcessOptions {
  /** names it in the output and in errors */
  name: string
  /** the built script node runs */
  mainScript: string
  /** its whole environment, but for PATH */
  env: Record<string, string | undefined>
  /** GET answering 200 means started */
  readyUrl: string
}

export interface NodeProcess {
  readonly name: string
  /** what it wrote to stdout and stderr, over every run */
  output(): string
  /** spawns it and resolves once GET readyUrl answers 200; rejects, with the output, if it exits first */
  start(): Promise<void>
  /** SIGTERM; resolves with the exit code (that of the last run when it is not running) */
  stop(): Promise<number | null>
  /** SIGKILL, no chance to clean up; resolves once it is gone */
  kill(): Promise<void>
}

export interface ExitedProcess {
  code: number | null
  stdout: string
  stderr: string
}

const READY_TIMEOUT_MS = 60_000

/** a port nothing listens on right now, for a process to listen on next */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export function nodeProcess(options: NodeProcessOptions): NodeProcess {
  const { name } = options
  let output = ''
  let child: ChildProcess | undefined
  let exited: Promise<number | null> = Promise.resolve(null)

  const signal = async (kind: NodeJS.Signals): Promise<number | null> => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(kind)
    return await exited
  }

  return {
    name,
    output: () => output,
    async start() {
      output += `--- starting ${name}\n`
      const spawned = spawnNode(options.mainScript, options.env)
      const collect = (chunk: Buffer) => {
        output += chunk.toString()
      }
      spawned.stdout?.on('data', collect)
      spawned.stderr?.on('data', collect)
      // 'close' rather than 'exit': by then everything it wrote has been collected
      exited = new Promise((resolve) => spawned.once('close', (code) => resolve(code)))
      child = spawned
      await waitUntilReady(options.readyUrl, exited, () => `${name}:\n${output}`)
    },
    stop: () => signal('SIGTERM'),
    async kill() {
      await signal('SIGKILL')
    },
  }
}

/**
 * runs it to its end (a start that must fail, a command-line tool); resolves with its exit code and
 * what it wrote. `args` follow the script; `stdin` is written to it and closed (none: no stdin).
 */
export async function runToExit(
  mainScript: string,
  env: Record<string, string | undefined>,
  options: { args?: readonly string[]; stdin?: string } = {},
): Promise<ExitedProcess> {
  const spawned = spawnNode(mainScript, env, options)
  let stdout = ''
  let stderr = ''
  spawned.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  spawned.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) =>
    spawned.once('close', (exitCode) => resolve(exitCode)),
  )
  return { code, stdout, stderr }
}

function spawnNode(
  mainScript: string,
  env: Record<string, string | undefined>,
  options: { args?: readonly string[]; stdin?: string } = {},
): ChildProcess {
  const spawned = spawn(process.execPath, [mainScript, ...(options.args ?? [])], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  if (options.stdin !== undefined) spawned.stdin?.end(options.stdin)
  return spawned
}

async function waitUntilReady(
  url: string,
  exited: Promise<number | null>,
  output: () => string,
): Promise<void> {
  let exitCode: number | null | undefined
  void exited.then((code) => {
    exitCode = code
  })
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`exited with ${exitCode} before it was ready, ${output()}`)
    try {
      const response = await fetch(url)
      await response.body?.cancel()
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`not ready within ${READY_TIMEOUT_MS} ms, ${output()}`)
}
