// chainpay-admin: manages merchants, API keys, webhook secrets and fee policies through the admin
// API. Everything but process wiring lives here, so that tests run it against a real admin API.

import { parseArgs } from 'node:util'
import { AdminClientError, createAdminClient } from '@chainpay/admin-client'
import type { ApiKeyView, MerchantView, ResealCounts } from '@chainpay/contracts'
import { adminTokenOf, TOKEN_ON_COMMAND_LINE } from './admin-token-source.js'
import { BALANCE_USAGE, balanceCommands } from './balance-commands.js'
import { chainCheckOptions, runChainCheck } from './chain-check.js'
import { CliError } from './cli-error.js'
import { DASHBOARD_USER_USAGE, dashboardUserCommands } from './dashboard-user-commands.js'
import {
  adminOptions,
  balanceOptions,
  type Command,
  type Flags,
  type Invocation,
  type Printer,
} from './invocation.js'
import { MERCHANT_WALLET_USAGE, merchantWalletCommands } from './merchant-wallet-commands.js'

export interface CliOutput {
  /** results */
  out(line: string): void
  /** errors and notices */
  err(line: string): void
}

export interface CliContext {
  env: Record<string, string | undefined>
  output: CliOutput
  /** all of stdin, for `--solana-seed-file -`; refuses a terminal (the seed would be echoed) */
  readStdin(): Promise<string>
}

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081'

export const USAGE = `Usage: chainpay-admin [--url URL] [--token-file FILE] [--json] <command>

Commands:
  merchants create --name NAME [--webhook-url URL] [--fee-bps BPS]
  merchants list
  merchants show MERCHANT_ID
${MERCHANT_WALLET_USAGE}
${DASHBOARD_USER_USAGE}
  keys list MERCHANT_ID
  keys create MERCHANT_ID
  keys roll MERCHANT_ID API_KEY [--overlap-hours HOURS]
  keys revoke MERCHANT_ID API_KEY
  webhook-secret rotate MERCHANT_ID
  webhook-url set MERCHANT_ID (URL | --clear)
  display-name set MERCHANT_ID (NAME | --clear)
  logo-url set MERCHANT_ID (URL | --clear)
  underpayment-tolerance set MERCHANT_ID PERCENT
  fee-policy set MERCHANT_ID --fee-bps BPS [--fixed NETWORK:CURRENCY=AMOUNT ...]
  deliveries list MERCHANT_ID [--status STATUS] [--limit N] [--cursor CURSOR]
  deliveries redeliver-failed MERCHANT_ID
  secrets reseal
${BALANCE_USAGE}
  chain check --network NETWORK [--rpc-url URL] [--solidity-url URL] [--api-key KEY]
              [--index N] [--xpub XPUB | --seed SEED] [--timeout-ms MS]

Options:
  --url URL          admin API address (env CHAINPAY_ADMIN_URL, default ${DEFAULT_ADMIN_URL})
  --token-file FILE  a file holding the admin token that only its owner may read (chmod 600);
                     without it, env CHAINPAY_ADMIN_TOKEN. Never the token itself on the command
                     line, where the process list shows it (scripts/admin reads it from DATA_DIR)
  --json             print the API's answer as JSON
  -h, --help         show this help

keys create gives a merchant another API key and prints its secret, this once; keys roll does the
same and lets the old key work on for HOURS (default 24, at most 720), so that the shop can move to
the new one, then refuses it; keys revoke refuses a key at once. keys list shows every key, none
with its secret. (keys issue is keys create.) See docs/operations.md, "API keys".

deliveries list prints a merchant's webhook deliveries, newest first (STATUS: pending, delivered,
failed, no_target), and the cursor of the next page; deliveries redeliver-failed puts every failed
delivery of the merchant back in line with a fresh retry schedule, each to its target's current
URL. See docs/operations.md, "Webhook deliveries".

merchants wallet set gives a merchant a wallet of its own: its new payments derive from the TRON
account xpub (m/44'/195'/0') and the Solana seed (hex), read from FILE or, with -, from stdin; never
from the command line. A seed file other users may read or change is refused (chmod 600 it). The
seed is sealed by payment-command and never shown again. merchants wallet remove sends the
merchant's new payments back to the operator's wallet. See docs/operations.md, "Merchant wallets";
chainpay-wallet keys makes the xpub and the seed from the merchant's mnemonics, offline
(docs/treasury.md, "A wallet's keys").

secrets reseal seals every merchant's webhook secret and API secret again under the gateway's
current key (CHAINPAY_ENCRYPTION_KEY), and payment-command each merchant wallet's seed under its own
(the same key), opening them with it or with a previous key (CHAINPAY_ENCRYPTION_KEY_PREVIOUS). Safe
to run again, and to run again after an interruption; it fails when a secret opens with no
configured key. See docs/operations.md, "Rotating the encryption key".

balances prints, per payment address and asset, what it received and what sweeps took from it
(--on-chain: and what the chain holds there now), page by page; --totals the sums per merchant,
network and currency. sweeps record records a sweep made outside chainpay-wallet, once per
transaction. See docs/operations.md, "Balances and sweeps".

chain check needs no admin API: it connects to the network's node (TRON, TRON_NILE, SOLANA,
SOLANA_DEVNET), prints its head block and the receiving address of index N (default 0). Unset
options come from the chain-indexer's and payment-command's variables: <NETWORK>_RPC_URL,
<NETWORK>_SOLIDITY_RPC_URL, <NETWORK>_RPC_API_KEY, CHAIN_RPC_TIMEOUT_MS,
<NETWORK>_REQUIRED_CONFIRMATIONS, TRON_ACCOUNT_XPUB, SOLANA_SEED, WALLET_FILE. Prefer SOLANA_SEED
to --seed: a command line shows in ps and in the shell's history. See docs/chains.md.`

const SECRETS_NOTICE = 'These secrets will not be shown again: store them now.'

/** runs one command line; resolves with the process exit code */
export async function runChainpayAdmin(argv: string[], context: CliContext): Promise<number> {
  const { output } = context
  try {
    const { values: flags, positionals } = parseCommandLine(argv)
    if (flags.help) {
      output.out(USAGE)
      return 0
    }
    if (flags.token !== undefined) throw new CliError(TOKEN_ON_COMMAND_LINE)
    const [group, action, ...args] = positionals
    if (group === undefined) {
      output.err(USAGE)
      return 1
    }
    if (group === 'chain' && action === 'check') {
      expectArgs(args, [], 'chain check --network NETWORK ...')
      await runChainCheck(flags, { env: context.env, out: (line) => output.out(line) })
      return 0
    }
    // --network is chain check's and the balance commands' too
    const balanceCommand = Object.hasOwn(balanceCommands, `${group} ${action ?? ''}`.trim())
    const chainFlag = Object.keys(chainCheckOptions).find(
      (name) =>
        !(balanceCommand && Object.hasOwn(balanceOptions, name)) && flags[name as keyof Flags] !== undefined,
    )
    if (chainFlag !== undefined) {
      const also = Object.hasOwn(balanceOptions, chainFlag) ? ' and the balance commands' : ''
      throw new CliError(`--${chainFlag} is only for chain check${also}`)
    }
    const command = commands[`${group} ${action ?? ''}`.trim()]
    if (command === undefined) throw new CliError(`unknown command '${positionals.join(' ')}'; see --help`)
    const token = adminTokenOf(flags, context.env)
    const url = flags.url ?? context.env.CHAINPAY_ADMIN_URL ?? DEFAULT_ADMIN_URL
    const api = createAdminClient({ url, token })
    await command({
      flags,
      args,
      api,
      print: createPrinter(output, flags.json === true),
      readStdin: context.readStdin,
    })
    return 0
  } catch (error) {
    // the admin client's failures say what the API said, or why it could not be reached
    if (!(error instanceof CliError || error instanceof AdminClientError)) throw error
    output.err(`error: ${error.message}`)
    return 1
  }
}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: adminOptions, allowPositionals: true, strict: true })
  } catch (error) {
    throw new CliError((error as Error).message)
  }
}

//////// Commands

const commands: Record<string, Command> = {
  async 'merchants create'({ flags, args, api, print }) {
    expectArgs(args, [], 'merchants create --name NAME')
    if (flags.name === undefined) throw new CliError('merchants create: --name is required')
    const body = {
      name: flags.name,
      ...(flags['webhook-url'] === undefined ? {} : { webhookUrl: flags['webhook-url'] }),
      ...(flags['fee-bps'] === undefined ? {} : { feeBps: integerFlag('--fee-bps', flags['fee-bps']) }),
    }
    const created = await api.merchants.create(body)
    print.result(created, () => [
      ...describeMerchant(created.merchant),
      `API key:        ${created.apiKey}`,
      `API secret:     ${created.apiSecret}`,
      `Webhook secret: ${created.webhookSecret}`,
    ])
    print.notice(SECRETS_NOTICE)
  },

  async 'merchants list'({ args, api, print }) {
    expectArgs(args, [], 'merchants list')
    const listed = await api.merchants.list()
    print.result(listed, () =>
      listed.merchants.length === 0
        ? ['no merchants']
        : listed.merchants.map(
            (merchant) =>
              `${merchant.merchantId}  ${merchant.name}  fee ${merchant.feePolicy.feeBps} bps  webhook ${merchant.webhookUrl ?? 'none'}`,
          ),
    )
  },

  async 'merchants show'({ args, api, print }) {
    const [merchantId] = expectArgs(args, ['MERCHANT_ID'], 'merchants show MERCHANT_ID')
    const shown = await api.merchants.show(merchantId)
    print.result(shown, () => [
      ...describeMerchant(shown.merchant),
      'API keys:',
      ...shown.apiKeys.map(describeKey),
    ])
  },

  async 'keys list'({ args, api, print }) {
    const [merchantId] = expectArgs(args, ['MERCHANT_ID'], 'keys list MERCHANT_ID')
    const listed = await api.apiKeys.list(merchantId)
    print.result(listed, () =>
      listed.apiKeys.length === 0 ? [`no API keys for ${merchantId}`] : listed.apiKeys.map(describeKey),
    )
  },

  async 'keys create'(invocation) {
    await issueKey(invocation, 'keys create MERCHANT_ID')
  },

  async 'keys roll'({ flags, args, api, print }) {
    const [merchantId, apiKey] = expectArgs(
      args,
      ['MERCHANT_ID', 'API_KEY'],
      'keys roll MERCHANT_ID API_KEY [--overlap-hours HOURS]',
    )
    const overlap = flags['overlap-hours']
    const rolled = await api.apiKeys.roll(
      merchantId,
      apiKey,
      overlap === undefined ? {} : { overlapHours: integerFlag('--overlap-hours', overlap) },
    )
    print.result(rolled, () => [
      `API key:    ${rolled.apiKey}`,
      `API secret: ${rolled.apiSecret}`,
      `The old key ${rolled.rolled.apiKey} works until ${rolled.rolled.expiresAt}, then is refused.`,
    ])
    print.notice(SECRETS_NOTICE)
  },

  async 'keys issue'(invocation) {
    await issueKey(invocation, 'keys issue MERCHANT_ID')
  },

  async 'keys revoke'({ args, api, print }) {
    const [merchantId, apiKey] = expectArgs(
      args,
      ['MERCHANT_ID', 'API_KEY'],
      'keys revoke MERCHANT_ID API_KEY',
    )
    const revoked = await api.apiKeys.revoke(merchantId, apiKey)
    print.result(revoked, () => [`Revoked ${revoked.apiKey} at ${revoked.revokedAt}`])
  },

  async 'webhook-secret rotate'({ args, api, print }) {
    const [merchantId] = expectArgs(args, ['MERCHANT_ID'], 'webhook-secret rotate MERCHANT_ID')
    const rotated = await api.merchants.rotateWebhookSecret(merchantId)
    print.result(rotated, () => [`Webhook secret: ${rotated.webhookSecret}`])
    print.notice(
      'This secret will not be shown again: store it now. The previous one no longer signs webhooks.',
    )
  },

  async 'webhook-url set'({ flags, args, api, print }) {
    const usage = 'webhook-url set MERCHANT_ID (URL | --clear)'
    const [merchantId, url]: readonly [string, string | null] = flags.clear
      ? [expectArgs(args, ['MERCHANT_ID'], usage)[0], null]
      : expectArgs(args, ['MERCHANT_ID', 'URL'], usage)
    const updated = await api.merchants.setWebhookUrl(merchantId, { webhookUrl: url })
    print.result(updated, () => [`Webhook URL of ${merchantId}: ${updated.merchant.webhookUrl ?? 'none'}`])
  },

  async 'display-name set'({ flags, args, api, print }) {
    const usage = 'display-name set MERCHANT_ID (NAME | --clear)'
    const [merchantId, displayName]: readonly [string, string | null] = flags.clear
      ? [expectArgs(args, ['MERCHANT_ID'], usage)[0], null]
      : expectArgs(args, ['MERCHANT_ID', 'NAME'], usage)
    const updated = await api.merchants.setDisplayName(merchantId, { displayName })
    print.result(updated, () => [
      `Display name of ${merchantId}: ${updated.merchant.displayName ?? `none (the page shows ${updated.merchant.name})`}`,
    ])
  },

  /** docs/api.md, "Underpayment tolerance": 0 to 5 percent, for payments created from now on */
  async 'underpayment-tolerance set'({ args, api, print }) {
    const usage = 'underpayment-tolerance set MERCHANT_ID PERCENT'
    const [merchantId, percent] = expectArgs(args, ['MERCHANT_ID', 'PERCENT'], usage)
    const updated = await api.merchants.setUnderpaymentTolerance(merchantId, {
      underpaymentTolerancePercent: percent,
    })
    print.result(updated, () => [
      `Underpayment tolerance of ${merchantId}: ${updated.merchant.underpaymentTolerancePercent} % (payments created from now on)`,
    ])
  },

  async 'logo-url set'({ flags, args, api, print }) {
    const usage = 'logo-url set MERCHANT_ID (URL | --clear)'
    const [merchantId, logoUrl]: readonly [string, string | null] = flags.clear
      ? [expectArgs(args, ['MERCHANT_ID'], usage)[0], null]
      : expectArgs(args, ['MERCHANT_ID', 'URL'], usage)
    const updated = await api.merchants.setLogoUrl(merchantId, { logoUrl })
    print.result(updated, () => [`Logo URL of ${merchantId}: ${updated.merchant.logoUrl ?? 'none'}`])
  },

  async 'fee-policy set'({ flags, args, api, print }) {
    const [merchantId] = expectArgs(args, ['MERCHANT_ID'], 'fee-policy set MERCHANT_ID --fee-bps BPS')
    if (flags['fee-bps'] === undefined) throw new CliError('fee-policy set: --fee-bps is required')
    const body = {
      feeBps: integerFlag('--fee-bps', flags['fee-bps']),
      fixedFees: fixedFees(flags.fixed ?? []),
    }
    const updated = await api.merchants.setFeePolicy(merchantId, body)
    print.result(updated, () => [`Fee policy of ${merchantId}: ${describeFees(updated.merchant.feePolicy)}`])
  },

  async 'deliveries list'({ flags, args, api, print }) {
    const [merchantId] = expectArgs(
      args,
      ['MERCHANT_ID'],
      'deliveries list MERCHANT_ID [--status STATUS] [--limit N] [--cursor CURSOR]',
    )
    const listed = await api.deliveries.list(merchantId, {
      ...(flags.status === undefined ? {} : { status: flags.status }),
      ...(flags.limit === undefined ? {} : { limit: integerFlag('--limit', flags.limit) }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
    })
    print.result(listed, () => [
      ...(listed.deliveries.length === 0 ? ['no deliveries'] : []),
      ...listed.deliveries.map(
        ({ delivery, attempts }) =>
          `${delivery.deliveryId}  ${delivery.eventType}  payment ${delivery.paymentId}  ${delivery.status}  ${attempts.length} attempt(s)${delivery.lastError === null ? '' : `  last error: ${delivery.lastError}`}`,
      ),
      ...(listed.nextCursor === null ? [] : [`next page: --cursor ${listed.nextCursor}`]),
    ])
  },

  async 'deliveries redeliver-failed'({ args, api, print }) {
    const [merchantId] = expectArgs(args, ['MERCHANT_ID'], 'deliveries redeliver-failed MERCHANT_ID')
    const done = await api.deliveries.redeliverFailed(merchantId)
    print.result(done, () => [`Redelivered ${done.redelivered} failed deliveries of ${merchantId}`])
  },

  async 'secrets reseal'({ args, api, print }) {
    expectArgs(args, [], 'secrets reseal')
    const report = await api.secrets.reseal()
    const counts = ({ total, resealed, alreadyCurrent }: ResealCounts) =>
      `${total} (${resealed} re-sealed, ${alreadyCurrent} already under the current key)`
    print.result(report, () => [
      `Current key:     ${report.currentKeyId}`,
      `Webhook secrets: ${counts(report.webhookSecrets)}`,
      `API secrets:     ${counts(report.apiSecrets)}`,
      `Endpoint secrets: ${counts(report.webhookEndpointSecrets)}`,
      ...(report.merchantWalletSeeds === undefined
        ? []
        : [`Wallet seeds:    ${counts(report.merchantWalletSeeds)}`]),
      ...report.unopenable.map(
        (secret) =>
          `Not opened:      ${secret.record} of ${secret.merchantId}${secret.apiKey ? ` key ${secret.apiKey}` : ''}${secret.endpointId ? ` endpoint ${secret.endpointId}` : ''}: ${secret.problem}`,
      ),
    ])
    if (report.unopenable.length > 0) {
      // the gateway keeps the merchants' secrets, payment-command the wallet seeds (docs/security.md)
      const seeds = report.unopenable.filter((secret) => secret.record === 'merchantWalletSeed').length
      const services = [
        ...(seeds < report.unopenable.length ? ['the gateway'] : []),
        ...(seeds > 0 ? ['payment-command (which keeps the merchant wallet seeds)'] : []),
      ].join(' and of ')
      throw new CliError(
        `${report.unopenable.length} sealed secret(s) open with no configured key and were left as they are; add the key that sealed them to CHAINPAY_ENCRYPTION_KEY_PREVIOUS of ${services} and run again, and keep the previous keys until this succeeds`,
      )
    }
    print.notice('Every secret is sealed with the current key: the previous keys can be removed.')
  },

  ...merchantWalletCommands,
  ...dashboardUserCommands,
  ...balanceCommands,
}

async function issueKey({ args, api, print }: Invocation, usage: string): Promise<void> {
  const [merchantId] = expectArgs(args, ['MERCHANT_ID'], usage)
  const issued = await api.apiKeys.issue(merchantId)
  print.result(issued, () => [`API key:    ${issued.apiKey}`, `API secret: ${issued.apiSecret}`])
  print.notice(SECRETS_NOTICE)
}

function describeKey(key: ApiKeyView): string {
  const state = {
    active: 'active',
    expiring: `active until ${key.expiresAt} (rolled)`,
    expired: `expired ${key.expiresAt}`,
    revoked: `revoked ${key.revokedAt}`,
  }[key.status]
  return `  ${key.apiKey}  created ${key.createdAt}  ${state}`
}

function describeMerchant(merchant: MerchantView): string[] {
  return [
    `Merchant:       ${merchant.merchantId}`,
    `Name:           ${merchant.name}`,
    `Webhook URL:    ${merchant.webhookUrl ?? 'none'}`,
    `Fees:           ${describeFees(merchant.feePolicy)}`,
    `Created:        ${merchant.createdAt}`,
  ]
}

function describeFees(policy: MerchantView['feePolicy']): string {
  const fixed = Object.entries(policy.fixedFees).map(([asset, amount]) => `${amount} ${asset}`)
  return [`${policy.feeBps} bps`, ...fixed.map((fee) => `+ ${fee}`)].join(' ')
}

//////// Arguments

/** the positional arguments, exactly one per name */
function expectArgs<const Names extends readonly string[]>(
  args: string[],
  names: Names,
  usage: string,
): { [Index in keyof Names]: string } {
  if (args.length !== names.length) {
    throw new CliError(`expected ${names.length === 0 ? 'no arguments' : names.join(' ')}; usage: ${usage}`)
  }
  return args as { [Index in keyof Names]: string }
}

function integerFlag(flag: string, text: string): number {
  if (!/^-?[0-9]+$/.test(text)) throw new CliError(`${flag}: expected an integer, got '${text}'`)
  return Number(text)
}

/** `TRON:USDT=0.5` -> { 'TRON:USDT': '0.5' } */
function fixedFees(entries: string[]): Record<string, string> {
  const fees: Record<string, string> = {}
  for (const entry of entries) {
    const match = /^([^=\s]+:[^=\s]+)=(\S+)$/.exec(entry)
    if (match === null) throw new CliError(`--fixed: expected NETWORK:CURRENCY=AMOUNT, got '${entry}'`)
    fees[match[1] as string] = match[2] as string
  }
  return fees
}

//////// Output

function createPrinter(output: CliOutput, asJson: boolean): Printer {
  return {
    result(value, lines) {
      if (asJson) output.out(JSON.stringify(value, null, 2))
      else for (const line of lines()) output.out(line)
    },
    notice(line) {
      if (asJson) output.err(line)
      else output.out(line)
    },
  }
}
