// chainpay standalone: the five services' own contexts composed in one process on embedded storage, on simulated chains or, with CHAIN_MODE=rpc, real ones (packages/standalone).

import { runServiceMain } from '@chainpay/service-kit'
import {
  buildStandaloneContext,
  readStandaloneConfig,
  STANDALONE_USAGE,
  standalonePorts,
} from '@chainpay/standalone'

await runServiceMain({
  service: 'standalone',
  readConfig: readStandaloneConfig,
  buildContext: buildStandaloneContext,
  // checked before the first start writes its files
  ports: standalonePorts,
  usage: STANDALONE_USAGE,
})
