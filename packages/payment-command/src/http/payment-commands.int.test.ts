import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands } from '@chainpay/command-api-client'
import { payFinallyOn } from '../testing/pay-finally.js'
import { describePaymentCommandsContract } from '../testing/payment-commands-contract.js'
import { openSqliteCommandSide } from '../testing/sqlite-command-side.js'
import { buildCommandApi } from './command-api.js'

describePaymentCommandsContract('direct handler on SQLite', async () => {
  const side = openSqliteCommandSide()
  return {
    commands: side.handler,
    addMerchant: side.addMerchant,
    payFinally: payFinallyOn(side),
    teardown: () => side.close(),
  }
})

describePaymentCommandsContract('HTTP client to the command API on SQLite', async () => {
  const side = openSqliteCommandSide()
  const app = buildCommandApi({ handler: side.handler, logger: side.logger })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const commands = createHttpPaymentCommands({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 5_000 })
  return {
    commands,
    addMerchant: side.addMerchant,
    payFinally: payFinallyOn(side),
    async teardown() {
      await commands.close()
      await app.close()
      await side.close()
    },
  }
})

describePaymentCommandsContract(
  'HTTP client with COMMAND_API_TOKEN to a command API that requires it',
  async () => {
    const token = 'command-api-token-contract-0123456789'
    const side = openSqliteCommandSide()
    const app = buildCommandApi({ handler: side.handler, logger: side.logger, token })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as AddressInfo
    const commands = createHttpPaymentCommands({
      baseUrl: `http://127.0.0.1:${port}`,
      timeoutMs: 5_000,
      token,
    })
    return {
      commands,
      addMerchant: side.addMerchant,
      payFinally: payFinallyOn(side),
      async teardown() {
        await commands.close()
        await app.close()
        await side.close()
      },
    }
  },
)
