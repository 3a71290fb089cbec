import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'

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

// The fault tests each run the five services (and faults-servers a Kafka and a FerretDB of its own)
// and kill or restart them under load. They run after everything else, by themselves and one at a
// time: beside each other or beside the rest, CPU starvation would slow their services (and so
// stretch every cluster's lifetime and idle cost) rather than save time. distributed-flow, mostly a
// minute of waiting for payments to expire, runs with the rest.
const faultFiles = ['packages/local-cluster/src/faults-*.e2e.test.ts']

export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['{packages,services}/*/src/**/*.unit.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['{packages,services}/*/src/**/*.int.test.ts'],
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
          exclude: [...configDefaults.exclude, ...faultFiles],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e-faults',
          include: faultFiles,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup,
          // a group of its own after the others' (0): vitest runs groups one after the other
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
        },
      },
    ],
  },
})
