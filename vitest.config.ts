import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

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

export default defineConfig({
  resolve: { alias },
  test: {
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
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup,
        },
      },
    ],
  },
})
