import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const root = fileURLToPath(new URL('.', import.meta.url))

// Tests run on the TypeScript sources of every workspace package, never on stale dist/ output.
// Kafka, a MongoDB-wire server and EventStoreDB where possible: one each per run, for the tiers that
// talk to real servers, started when the first test file that uses them imports
// @chainpay/local-servers/testing (see packages/local-servers/src/testing/global-setup.ts).
const globalSetup = ['packages/local-servers/src/testing/global-setup.ts']

const alias = [
  { find: /^@chainpay\/([a-z-]+)\/testing$/, replacement: `${root}packages/$1/src/testing/index.ts` },
  { find: /^@chainpay\/([a-z-]+)$/, replacement: `${root}packages/$1/src/index.ts` },
]

// Files run side by side: most of a test run is waiting (for a broker to start, a payment to expire,
// a consumer session to time out), not computing, so more files than cores overlap well. vitest's
// default, one worker fewer than the cores, runs them one after another on a 2-core machine.
const maxWorkers = Number(process.env.VITEST_MAX_WORKERS ?? 4)

/**
 * At most two five-service clusters at a time (startTestCluster waits for a slot: see
 * packages/local-cluster/src/testing/cluster-slots.ts). Each is five services, and faults-servers
 * brings a Kafka and a FerretDB of its own too; three at once, beside the rest of a run, starve each
 * other of CPU, which stretches every cluster's lifetime (and idle cost) instead of saving time.
 */
const clusterSlots = { runId: String(process.pid), count: 2 }

/**
 * The order in which files are handed to the workers: the long ones first, so that the run does not
 * end waiting for one of them. distributed-flow (mostly a minute of waiting for payments to expire)
 * and faults-services take the two cluster slots at once; the standalone end-to-end files follow,
 * then faults-servers, which starts its own servers and then waits for the first free slot; the
 * integration files next, and the unit files, short and many, fill the workers to the end. Within
 * each class vitest's own order stands (the longest first once it has timings, the largest files
 * first before).
 */
const SCHEDULE: ((file: string) => boolean)[] = [
  (file) => file === 'packages/local-cluster/src/distributed-flow.e2e.test.ts',
  (file) => file === 'packages/local-cluster/src/faults-services.e2e.test.ts',
  (file) => file.endsWith('.e2e.test.ts') && !file.startsWith('packages/local-cluster/src/faults-'),
  (file) => file.endsWith('.e2e.test.ts'),
  (file) => file.endsWith('.int.test.ts'),
  () => true,
]

/**
 * Unit files that change something for the whole process, which a worker that shares its modules
 * between files would pass on to the files after them: hmac.unit replaces node:crypto (vi.mock), and
 * the chainpay-wallet command tests run sign and keys in process, which refuse the network for the
 * rest of it (packages/treasury/src/offline-guard.ts). scripts/lint refuses another file that does
 * either without being listed here.
 */
const UNIT_FILES_WITH_PROCESS_WIDE_EFFECTS = [
  'packages/signing/src/hmac.unit.test.ts',
  'packages/treasury/src/commands.unit.test.ts',
  'packages/treasury/src/keys-command.unit.test.ts',
  'packages/treasury/src/offline-key-material.unit.test.ts',
  'packages/treasury/src/sign-command.unit.test.ts',
]

class ScheduleSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const file = relative(root, spec.moduleId)
      return SCHEDULE.findIndex((matches) => matches(file))
    }
    const ordered = await super.sort(files)
    return ordered
      .map((spec, index) => ({ spec, index, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ spec }) => spec)
  }
}

export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers,
    sequence: { sequencer: ScheduleSequencer },
    provide: { clusterSlots },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{packages,services}/*/src/**/*.unit.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT_FILES_WITH_PROCESS_WIDE_EFFECTS],
          // One worker's files share its loaded modules instead of loading tronweb, web3.js and the
          // rest again for every file: 48 CPU-seconds to 15 (docs/benchmarks.md)
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'unit-isolated', include: [...UNIT_FILES_WITH_PROCESS_WIDE_EFFECTS] },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['{packages,services}/*/src/**/*.int.test.ts'],
          // as the unit tier: no integration file mocks a module or runs the wallet's offline
          // commands (scripts/lint), each puts back what it changes of the process (umask) and
          // builds its own stores, registries and servers; sharing a worker's loaded modules
          // halves the tier's CPU time (299 to 143 CPU-seconds, 2026-11-28, docs/benchmarks.md)
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          globalSetup,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['{packages,services}/*/src/**/*.e2e.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup,
        },
      },
    ],
  },
})
