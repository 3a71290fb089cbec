import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const root = fileURLToPath(new URL('.', import.meta.url))

// Tests run on the TypeScript sources of every workspace package, never on stale dist/ output.
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
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['{packages,services}/*/src/**/*.e2e.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
