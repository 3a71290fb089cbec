// chainpay-wallet: plan (online, no keys), sign (offline), broadcast (online, no keys), and keys
// (offline: a wallet's xpub and seed from its mnemonics). Everything but process wiring lives here so
// that tests run the command in process (docs/treasury.md).

import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { defaultAssetRegistry, toUnits } from '@chainpay/domain'
import { PrivateFileError, readOwnerOnlyFile } from '@chainpay/platform'
import { AdminRefusal, createAdminApi } from './admin-api.js'
import { adminTokenOf, TOKEN_ON_COMMAND_LINE } from './admin-token-source.js'
import { broadcastSigned, statePathOf } from './broadcaster.js'
import { CommandError } from './command-error.js'
import { refuseNetwork } from './offline-guard.js'
import type { OutgoingRow } from './outgoing-plan.js'
import { networkAssets, type PlanInput } from './plan-input.js'
import type { TreasuryKey } from './plan-signer.js'
import { readPlanFile, readSignedFile, writeJsonFile } from './sweep-plan.js'
import { planSummary, planSweep } from './sweep-planner.js'

export interface WalletCommandContext {
  env: Record<string, string | undefined>
  out(line: string): void
  err(line: string): void
  /** a mnemonic when no file gives it: typed at a prompt without echo */
  promptSecret(question: string): Promise<string>
  now(): Date
}

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081'
/** the treasury's default keys (docs/treasury.md, "Treasury key"): Ledger Live's second TRON account, Solana's m/44'/501' */
/**
 * The treasury's usual paths: TRON's (Ledger Live's and TronLink's second account) is the default;
 * Solana's (Ledger Live's first account) is taken only when named (treasuryPath)
 */
export const TREASURY_PATHS = { TRON: "m/44'/195'/1'/0/0", SOLANA: "m/44'/501'" } as const

export const USAGE = `Usage: chainpay-wallet <mnemonic | keys | treasury | plan | sign | broadcast | release> [options]

  mnemonic --out (FILE | -)
  keys (--solana-seed-out FILE | --wallet-out FILE) [--tron-mnemonic-file FILE] [--solana-mnemonic-file FILE]
  treasury --chain TRON|SOLANA [--mnemonic-file FILE] [--path PATH] [--key-out FILE]

  plan --network NETWORK --treasury ADDRESS --out PLAN.json [--rpc-url URL] [--solidity-url URL]
       [--api-key KEY]
       [--energy burn|delegate] [--treasury-path PATH | --treasury-external] [--wallet ID]
       [--min CURRENCY=AMOUNT ...] [--rate CURRENCY=NATIVE_PER_TOKEN ...] [--allow-loss]
       [--nonce-account ADDRESS ...] [--sweeps-only]
       [--url ADMIN_URL] [--token-file FILE]
  sign --plan PLAN.json --out SIGNED.json [--mnemonic-file FILE] [--treasury-key-file FILE]
  broadcast --signed SIGNED.json [--rpc-url URL] [--solidity-url URL] [--api-key KEY] [--poll-ms MS]
       [--max-polls N] [--url ADMIN_URL] [--token-file FILE]
  release (--plan PLAN.json | --signed SIGNED.json) [--url ADMIN_URL] [--token-file FILE]

plan reads the addresses that received funds (GET /admin/v1/balances), what each holds on chain,
and writes the transactions of the sweep to the treasury with the fees they cost; then the ready
refunds and payouts of the wallet (GET /admin/v1/outgoing; --wallet, else the operator's), each
marked sending in the plan, paid by the treasury after the sweeps (--sweeps-only leaves them out).
release gives a plan's refunds and payouts back (ready) when it will never be broadcast. sign works
offline: it refuses any network access, takes the mnemonic from --mnemonic-file or a prompt,
checks every address against the plan and writes signed transactions. broadcast sends them in
order, reading the chain again before each and stopping, with what changed, when the plan no longer
holds; takes back delegated energy whatever happened; records each sweep once final (POST
/admin/v1/sweeps); and can be run again after any failure. The treasury's key derives from the
mnemonic at --treasury-path (TRON: m/44'/195'/1'/0/0 by default) or is its own
(--treasury-external, signed with --treasury-key-file); a Solana plan
names one of them, as payment-command holds the Solana seed online. plan and broadcast call the admin
API at --url (CHAINPAY_ADMIN_URL, default ${DEFAULT_ADMIN_URL}) with the token of CHAINPAY_ADMIN_TOKEN or
of --token-file (never on the command line, where the process list shows it; scripts/wallet takes
both from the instance's DATA_DIR, ADMIN_HOST and ADMIN_PORT). Node URLs default to
<NETWORK>_RPC_URL (and <NETWORK>_SOLIDITY_RPC_URL), API keys to <NETWORK>_RPC_API_KEY. keys works offline too: from
a TRON mnemonic and a Solana one (files, or prompts), it prints the TRON account xpub
(m/44'/195'/0') and writes the Solana seed to a new file of mode 0600, what chainpay-admin merchants
wallet set takes, or both to a new wallet file of mode 0600, what WALLET_FILE names. mnemonic (offline) makes a new 24-word
mnemonic into a new file of mode 0600, or prints it with --out -. treasury (offline) prints the
treasury's address from a mnemonic: TRON at m/44'/195'/1'/0/0 of the TRON mnemonic (what plan and
sign take by default), Solana at m/44'/501'/0'/0' of a mnemonic of its own (Phantom's first account),
whose key --key-out writes for sign --treasury-key-file. See docs/treasury.md.`

const options = {
  help: { type: 'boolean', short: 'h' },
  network: { type: 'string' },
  treasury: { type: 'string' },
  out: { type: 'string' },
  'rpc-url': { type: 'string' },
  'solidity-url': { type: 'string' },
  'api-key': { type: 'string' },
  energy: { type: 'string' },
  'treasury-path': { type: 'string' },
  'treasury-external': { type: 'boolean' },
  wallet: { type: 'string' },
  min: { type: 'string', multiple: true },
  rate: { type: 'string', multiple: true },
  'allow-loss': { type: 'boolean' },
  'nonce-account': { type: 'string', multiple: true },
  'sweeps-only': { type: 'boolean' },
  url: { type: 'string' },
  // refused, with what to use instead (admin-token-source.ts)
  token: { type: 'string' },
  'token-file': { type: 'string' },
  plan: { type: 'string' },
  'mnemonic-file': { type: 'string' },
  'treasury-key-file': { type: 'string' },
  'tron-mnemonic-file': { type: 'string' },
  'solana-mnemonic-file': { type: 'string' },
  'solana-seed-out': { type: 'string' },
  'wallet-out': { type: 'string' },
  chain: { type: 'string' },
  path: { type: 'string' },
  'key-out': { type: 'string' },
  signed: { type: 'string' },
  'poll-ms': { type: 'string' },
  'max-polls': { type: 'string' },
} as const

type Flags = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values']

/** runs one command line; resolves with the exit code */
export async function runChainpayWallet(argv: string[], context: WalletCommandContext): Promise<number> {
  try {
    let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>
    try {
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true })
    } catch (error) {
      throw new CommandError((error as Error).message)
    }
    const { values: flags, positionals } = parsed
    if (flags.help) {
      context.out(USAGE)
      return 0
    }
    if (flags.token !== undefined) throw new CommandError(TOKEN_ON_COMMAND_LINE)
    const [command, ...rest] = positionals
    if (rest.length > 0) throw new CommandError(`unexpected arguments: ${rest.join(' ')}`)
    if (command === 'plan') await plan(flags, context)
    else if (command === 'sign') await sign(flags, context)
    else if (command === 'broadcast') await broadcast(flags, context)
    else if (command === 'release') await release(flags, context)
    else if (command === 'keys') await keys(flags, context)
    else if (command === 'mnemonic') await mnemonic(flags, context)
    else if (command === 'treasury') await treasury(flags, context)
    else {
      context.err(USAGE)
      return 1
    }
    return 0
  } catch (error) {
    // a node's or the admin API's failure too: one line, the run can be started again. No message
    // here carries key material: the signer's own never do, and the libraries' name no key.
    const message = error instanceof Error ? error.message : String(error)
    context.err(`error: ${error instanceof CommandError ? message : `unexpected failure: ${message}`}`)
    return 1
  }
}

//////// plan

/**
 * The path `sign` derives the treasury's key at, or null for a key of its own. TRON's default is
 * safe (the online xpub of account 0 does not derive account 1). Solana has none: payment-command
 * holds the Solana seed online, and any key derived from it is as exposed as that seed, so the
 * operator names one knowingly or gives the treasury a key of its own (docs/treasury.md).
 */
function treasuryPath(flags: Flags, chain: 'TRON' | 'SOLANA'): string | null {
  if (flags['treasury-external']) return null
  if (flags['treasury-path'] !== undefined) return flags['treasury-path']
  if (chain === 'SOLANA') {
    throw new CommandError(
      `a Solana treasury derived from the payment mnemonic is as exposed as payment-command, which holds its seed online (SOLANA_SEED, or a merchant wallet's seed): give the treasury a key of its own with --treasury-external (and sign with --treasury-key-file), or accept that with --treasury-path "${TREASURY_PATHS.SOLANA}" (docs/treasury.md, "The treasury key")`,
    )
  }
  return TREASURY_PATHS.TRON
}

async function plan(flags: Flags, context: WalletCommandContext): Promise<void> {
  const network = required(flags.network, '--network')
  const definition = defaultAssetRegistry.networks.find((candidate) => candidate.network === network)
  if (definition === undefined) throw new CommandError(`unknown network ${network}`)
  const treasury = required(flags.treasury, '--treasury')
  const out = required(flags.out, '--out')
  const energy = flags.energy ?? 'burn'
  if (energy !== 'burn' && energy !== 'delegate') throw new CommandError('--energy: burn or delegate')
  const assets = networkAssets(network)
  const { decimals } = assets
  const input: PlanInput = {
    rpcUrl: rpcUrl(flags, context, network),
    ...solidityUrl(flags, context, network),
    ...apiKey(flags, context, network),
    network,
    treasury: {
      address: treasury,
      derivationPath: treasuryPath(flags, definition.chain),
    },
    energy,
    minimums: new Map(
      (flags.min ?? []).map((entry) =>
        pair(entry, '--min', (currency, amount) => toUnits(amount, decimals(currency))),
      ),
    ),
    rates: new Map(
      (flags.rate ?? []).map((entry) => pair(entry, '--rate', (_currency, rate) => parseRate(rate))),
    ),
    allowLoss: flags['allow-loss'] === true,
    nonceAccounts: flags['nonce-account'] ?? [],
    ...assets,
    now: context.now(),
  }
  const adminApi = admin(flags, context)
  const rows = (
    await adminApi.balances({
      network,
      ...(flags.wallet === undefined ? {} : { walletId: flags.wallet }),
    })
  ).filter((row) => row.network === network)
  // the treasury pays the refunds and payouts of the wallet it plans for: without --wallet, the
  // operator's (a merchant's own wallet has its own treasury: plan it with --wallet)
  const outgoingRows = flags['sweeps-only']
    ? []
    : (await readyOutgoing(adminApi, network, flags.wallet ?? 'operator', context)).filter(
        (row) => row.network === network,
      )
  const planId = randomUUID()
  const sweepPlan = await planSweep(rows, input, definition.chain, {
    rows: outgoingRows,
    planId,
    async mark(row) {
      try {
        await adminApi.markPlanned(row, planId)
        return undefined
      } catch (error) {
        if (error instanceof AdminRefusal) return error
        throw error
      }
    },
    release: (row) => adminApi.release(row, planId),
  })
  try {
    writeJsonFile(out, sweepPlan)
  } catch (error) {
    // no file will name the items marked in this plan: give them back, then say why
    for (const item of sweepPlan.outgoing ?? []) await adminApi.release(item, planId).catch(() => undefined)
    throw new CommandError(
      `cannot write ${out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}${(sweepPlan.outgoing ?? []).length > 0 ? '; its refunds and payouts were given back (ready)' : ''}`,
    )
  }
  for (const line of planSummary(sweepPlan, out)) context.out(line)
}

/**
 * the ready refunds and payouts; an admin API older than them (404 on the route) plans sweeps only,
 * and says so
 */
async function readyOutgoing(
  adminApi: ReturnType<typeof createAdminApi>,
  network: string,
  walletId: string,
  context: WalletCommandContext,
): Promise<OutgoingRow[]> {
  try {
    return await adminApi.outgoing({ network, status: 'ready', walletId })
  } catch (error) {
    if (!(error instanceof AdminRefusal) || error.status !== 404) throw error
    context.out(
      'note: the admin API lists no refunds and payouts (GET /admin/v1/outgoing: 404, a chainpay older than this chainpay-wallet): planning sweeps only',
    )
    return []
  }
}

//////// sign

async function sign(flags: Flags, context: WalletCommandContext): Promise<void> {
  // before any key is read, and before the signing code is even loaded
  goOffline('sign', flags)
  const planPath = required(flags.plan, '--plan')
  const out = required(flags.out, '--out')
  const { plan: sweepPlan, sha256 } = readPlanFile(planPath)
  // what leaves the treasury for others, decoded from the transactions, before any key is read
  const outgoing = sweepPlan.outgoing ?? []
  if (outgoing.length > 0) {
    const { checkOutgoing } = await import('./outgoing-signer.js')
    const lines = checkOutgoing(sweepPlan)
    context.out(
      `${sweepPlan.network}: the treasury ${sweepPlan.treasury.address} pays ${outgoing.length} refunds and payouts (plan ${sweepPlan.planId}); compare each with the admin API's list (GET /admin/v1/outgoing?status=sending) before you sign:`,
    )
    for (const line of lines) context.out(line)
  }
  const mnemonic =
    flags['mnemonic-file'] === undefined
      ? await context.promptSecret('mnemonic (not shown): ')
      : readSecretFile(flags['mnemonic-file'], '--mnemonic-file', AT_THE_PROMPT)
  const treasuryKey =
    flags['treasury-key-file'] === undefined
      ? undefined
      : readTreasuryKey(sweepPlan.chain, flags['treasury-key-file'])
  const { signPlan } = await import('./plan-signer.js')
  const signed = signPlan({
    plan: sweepPlan,
    planSha256: sha256,
    mnemonic,
    ...(treasuryKey === undefined ? {} : { treasuryKey }),
  })
  writeJsonFile(out, signed)
  // what was signed, for the ceremony's record: the same sentences the plan shows
  context.out(`${sweepPlan.network}: to the treasury ${sweepPlan.treasury.address}`)
  for (const step of sweepPlan.steps) context.out(`  ${step.id}: ${step.description}`)
  context.out(
    `signed ${signed.steps.length} transactions of ${planPath} into ${out}; broadcast before ${signed.validUntil}`,
  )
}

/** refuses the network for the rest of the process, and any option that would need it */
function goOffline(command: 'sign' | 'keys' | 'mnemonic' | 'treasury', flags: Flags): void {
  refuseNetwork(command)
  const online = (['url', 'token', 'token-file', 'rpc-url', 'solidity-url', 'api-key'] as const).find(
    (name) => flags[name] !== undefined,
  )
  if (online !== undefined) throw new CommandError(`${command} works offline and takes no --${online}`)
}

/**
 * a mnemonic's or a key's file: refused, as chainpay-admin refuses a seed file, when other users may
 * read it (readOwnerOnlyFile); `otherWay` names the prompt where there is one
 */
function readSecretFile(path: string, flag: string, otherWay?: string): string {
  try {
    return readOwnerOnlyFile(path, flag, otherWay)
  } catch (error) {
    if (error instanceof PrivateFileError) throw new CommandError(error.message)
    throw error
  }
}

const AT_THE_PROMPT = 'leave the option out and type it at the prompt'

/** TRON: a hex private key; Solana: solana-keygen's JSON array of the 64-byte secret key */
function readTreasuryKey(chain: 'TRON' | 'SOLANA', path: string): TreasuryKey {
  const text = readSecretFile(path, '--treasury-key-file').trim()
  if (chain === 'TRON') {
    if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text))
      throw new CommandError('--treasury-key-file: expected 64 hex digits')
    return { chain, privateKeyHex: text.replace(/^0x/, '') }
  }
  try {
    const bytes = Uint8Array.from(JSON.parse(text) as number[])
    if (bytes.length !== 64) throw new Error('length')
    return { chain, secretKey: bytes }
  } catch {
    throw new CommandError('--treasury-key-file: expected a solana-keygen JSON array of 64 numbers')
  }
}

//////// keys

async function keys(flags: Flags, context: WalletCommandContext): Promise<void> {
  goOffline('keys', flags)
  const seedOut = flags['solana-seed-out']
  const walletOut = flags['wallet-out']
  if (seedOut === undefined && walletOut === undefined) {
    throw new CommandError(
      '--solana-seed-out (for chainpay-admin merchants wallet set) or --wallet-out (for WALLET_FILE) is required',
    )
  }
  const mnemonic = async (chain: 'TRON' | 'Solana', flag: 'tron-mnemonic-file' | 'solana-mnemonic-file') => {
    const path = flags[flag]
    return path === undefined
      ? {
          mnemonic: await context.promptSecret(`${chain} mnemonic (not shown): `),
          source: `the ${chain} mnemonic`,
        }
      : { mnemonic: readSecretFile(path, `--${flag}`, AT_THE_PROMPT), source: `--${flag}` }
  }
  const { writeWalletKeys } = await import('./wallet-keys.js')
  const lines = writeWalletKeys({
    tron: await mnemonic('TRON', 'tron-mnemonic-file'),
    solana: await mnemonic('Solana', 'solana-mnemonic-file'),
    ...(seedOut === undefined ? {} : { seedOut }),
    ...(walletOut === undefined ? {} : { walletOut }),
  })
  for (const line of lines) context.out(line)
}

//////// mnemonic, treasury

/** a new mnemonic: to a new file of mode 0600, or to stdout with `--out -` (for paper, or a pipe) */
async function mnemonic(flags: Flags, context: WalletCommandContext): Promise<void> {
  goOffline('mnemonic', flags)
  const out = required(flags.out, '--out')
  const { createSecretFile, newMnemonic } = await import('./offline-key-material.js')
  const words = newMnemonic()
  if (out === '-') {
    context.out(words)
    return
  }
  createSecretFile(out, `${words}\n`, '--out')
  context.out(
    `New 24-word mnemonic written to ${out} (mode 0600). Write it down on paper, keep it offline, then wipe the file once its keys are made.`,
  )
}

/** the default treasury path of each chain for this command (docs/treasury.md, "The treasury key") */
export const TREASURY_COMMAND_PATHS = { TRON: TREASURY_PATHS.TRON, SOLANA: "m/44'/501'/0'/0'" } as const

async function treasury(flags: Flags, context: WalletCommandContext): Promise<void> {
  goOffline('treasury', flags)
  const chain = required(flags.chain, '--chain')
  if (chain !== 'TRON' && chain !== 'SOLANA') throw new CommandError(`--chain: TRON or SOLANA, got ${chain}`)
  const path = flags.path ?? TREASURY_COMMAND_PATHS[chain]
  const keyOut = flags['key-out']
  const words =
    flags['mnemonic-file'] === undefined
      ? await context.promptSecret(
          `${chain === 'TRON' ? 'TRON' : "the Solana treasury's"} mnemonic (not shown): `,
        )
      : readSecretFile(flags['mnemonic-file'], '--mnemonic-file', AT_THE_PROMPT)
  const source = flags['mnemonic-file'] === undefined ? 'the mnemonic' : '--mnemonic-file'
  const { createSecretFile, treasuryKeyOf } = await import('./offline-key-material.js')
  const key = treasuryKeyOf(chain, words, path, source)
  if (keyOut !== undefined) createSecretFile(keyOut, key.keyFile, '--key-out')
  const name = chain === 'TRON' ? 'TRON' : 'Solana'
  context.out(`${name} treasury (${key.derivationPath}): ${key.address}`)
  if (keyOut !== undefined) {
    context.out(`Its key written to ${keyOut} (mode 0600): sign with --treasury-key-file ${keyOut}`)
  }
  const derivedBySign = chain === 'TRON' && keyOut === undefined
  context.out(
    derivedBySign
      ? `plan with --network TRON --treasury ${key.address}${path === TREASURY_PATHS.TRON ? '' : ` --treasury-path "${path}"`}; sign derives its key from the TRON mnemonic`
      : `plan with --network ${chain} --treasury ${key.address} --treasury-external; sign with --treasury-key-file${keyOut === undefined ? ' (run again with --key-out FILE to write it)' : ` ${keyOut}`}`,
  )
}

//////// broadcast

async function broadcast(flags: Flags, context: WalletCommandContext): Promise<void> {
  const signedPath = required(flags.signed, '--signed')
  const signed = readSignedFile(signedPath)
  const state = await broadcastSigned(signed, {
    rpcUrl: rpcUrl(flags, context, signed.network),
    ...solidityUrl(flags, context, signed.network),
    ...apiKey(flags, context, signed.network),
    statePath: statePathOf(signedPath),
    admin: admin(flags, context),
    pollMs: integer(flags['poll-ms'] ?? '3000', '--poll-ms'),
    maxPolls: integer(flags['max-polls'] ?? '100', '--max-polls'),
    log: context.out,
  })
  context.out(
    `broadcast ${signedPath}: ${Object.keys(state.confirmed).length} of ${signed.steps.length} confirmed, sweeps recorded once final`,
  )
}

//////// release

/** gives a plan's refunds and payouts back (sending -> ready) when it will never be broadcast */
async function release(flags: Flags, context: WalletCommandContext): Promise<void> {
  const source =
    flags.plan !== undefined
      ? readPlanFile(flags.plan).plan
      : readSignedFile(required(flags.signed, '--plan or --signed'))
  const items = source.outgoing ?? []
  if (items.length === 0 || source.planId === undefined) {
    context.out('the plan pays no refund or payout: nothing to release')
    return
  }
  const adminApi = admin(flags, context)
  for (const item of items) {
    try {
      await adminApi.release(item, source.planId)
      context.out(`released ${item.kind} ${item.id}: ready again, for the next plan`)
    } catch (error) {
      if (!(error instanceof AdminRefusal)) throw error
      context.out(`kept ${item.kind} ${item.id}: ${error.message}`)
    }
  }
}

//////// helpers

function admin(flags: Flags, context: WalletCommandContext) {
  const token = adminTokenOf(flags, context.env)
  return createAdminApi(flags.url ?? context.env.CHAINPAY_ADMIN_URL ?? DEFAULT_ADMIN_URL, token)
}

function rpcUrl(flags: Flags, context: WalletCommandContext, network: string): string {
  const url = flags['rpc-url'] ?? context.env[`${network}_RPC_URL`]
  if (!url) throw new CommandError(`a node is required: pass --rpc-url or set ${network}_RPC_URL`)
  return url
}

function solidityUrl(flags: Flags, context: WalletCommandContext, network: string): { solidityUrl?: string } {
  const url = flags['solidity-url'] ?? context.env[`${network}_SOLIDITY_RPC_URL`]
  return url ? { solidityUrl: url } : {}
}

function apiKey(flags: Flags, context: WalletCommandContext, network: string): { apiKey?: string } {
  const key = flags['api-key'] ?? context.env[`${network}_RPC_API_KEY`]
  return key ? { apiKey: key } : {}
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new CommandError(`${flag} is required`)
  return value
}

function integer(text: string, flag: string): number {
  if (!/^[0-9]+$/.test(text)) throw new CommandError(`${flag}: expected an integer, got '${text}'`)
  return Number(text)
}

function pair<T>(entry: string, flag: string, parse: (currency: string, value: string) => T): [string, T] {
  const match = /^([A-Z0-9_]+)=(.+)$/.exec(entry)
  if (!match?.[1] || !match[2]) throw new CommandError(`${flag}: expected CURRENCY=AMOUNT, got '${entry}'`)
  try {
    return [match[1], parse(match[1], match[2])]
  } catch (error) {
    if (error instanceof CommandError) throw error
    throw new CommandError(`${flag} ${entry}: ${(error as Error).message}`)
  }
}

/** "3.6" -> 36 / 10: exact, no floating point */
function parseRate(text: string): { nativePerTokenUnits: bigint; rateScale: bigint } {
  const fraction = text.split('.')[1]?.length ?? 0
  const units = toUnits(text, fraction)
  if (units <= 0n) throw new CommandError('--rate must be positive')
  return { nativePerTokenUnits: units, rateScale: 10n ** BigInt(fraction) }
}
