// chainpay standalone: the five services in one process on embedded storage, with simulated chains.
import { runServiceMain } from '@chainpay/service-kit'
import { readStandaloneConfig } from './config.js'
import { buildStandalone } from './standalone.js'

await runServiceMain({
  service: 'standalone',
  readConfig: readStandaloneConfig,
  buildContext: buildStandalone,
})
