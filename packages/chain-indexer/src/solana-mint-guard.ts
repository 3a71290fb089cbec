// Every SPL mint of the registry on a watched Solana network must be a mint of the classic SPL
// Token program (decisions 19): chainpay watches, counts and sweeps that program's token accounts
// only. A Token-2022 mint (PYUSD's kind) has other associated token accounts, may withhold a
// transfer fee from what arrives, and cannot close an account with withheld fees: accepted, its
// payments would be missed. So the chain-indexer asks the node what owns each mint before it
// watches, and refuses to start, naming the mint, rather than miss them (docs/chains.md,
// "Token-2022 mints"). A node that does not answer at start is asked again (1 s, 2 s, 4 s... then
// every 30 s), and the chain-indexer is not ready until it has.

import type { AssetRegistry } from '@chainpay/domain'
import type { Logger, ReadinessReporter, Service } from '@chainpay/platform'
import type { SolanaAddressReader } from '@chainpay/ports'

export const SPL_TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
/** a node that did not answer is asked again after 1 s, 2 s, 4 s... at most this */
const MAX_RECHECK_MS = 30_000

/** what is wrong with the network's registry mints, one sentence each; none when every one is the classic program's */
export async function solanaMintProblems(
  reader: SolanaAddressReader,
  registry: AssetRegistry,
  network: string,
): Promise<string[]> {
  const assets = registry.assets.filter(
    (asset) => asset.network === network && asset.tokenStandard === 'SPL' && asset.contract !== null,
  )
  if (assets.length === 0) return []
  const { states } = await reader.accounts(assets.map((asset) => asset.contract as string))
  return assets.flatMap((asset) => {
    const mint = asset.contract as string
    const state = states.get(mint)
    const named = `${network} ${asset.currency} (mint ${mint})`
    if (state === null || state === undefined) {
      return [`${named}: no such account on this network; check the mint in the asset registry`]
    }
    if (state.program === SPL_TOKEN_PROGRAM_ID) return []
    if (state.program === TOKEN_2022_PROGRAM_ID) {
      return [
        `${named}: a Token-2022 mint, which chainpay does not handle end to end (its own associated token accounts, transfer fees withheld from what arrives, accounts that cannot close with withheld fees): remove it from the asset registry (docs/chains.md, "Token-2022 mints")`,
      ]
    }
    return [`${named}: owned by ${state.program}, not a token program: check the mint in the asset registry`]
  })
}

export interface SolanaMintGuardOptions {
  /** each watched Solana network with a reader of its node */
  networks: ReadonlyArray<{ network: string; reader: SolanaAddressReader }>
  registry: AssetRegistry
  logger: Logger
}

/**
 * Checks the mints at start: a mint chainpay cannot handle stops the start with the sentences of
 * solanaMintProblems; a node that does not answer is asked again until it does (not ready meanwhile).
 */
export function createSolanaMintGuard(options: SolanaMintGuardOptions): Service & ReadinessReporter {
  const { registry, logger } = options
  const unchecked = new Set(options.networks.map(({ network }) => network))
  let timer: ReturnType<typeof setTimeout> | undefined
  let refused: string | undefined
  let attempts = 0
  let started = false

  async function check(): Promise<string[]> {
    const problems: string[] = []
    for (const { network, reader } of options.networks) {
      if (!unchecked.has(network)) continue
      try {
        problems.push(...(await solanaMintProblems(reader, registry, network)))
        unchecked.delete(network)
      } catch (error) {
        logger.warn({ err: error, network }, 'could not ask the node about the registry mints; asking again')
      }
    }
    return problems
  }

  function recheckLater(): void {
    if (unchecked.size === 0 || refused !== undefined) return
    attempts += 1
    timer = setTimeout(
      () => {
        void check().then((problems) => {
          if (problems.length > 0) {
            refused = problems.join('; ')
            logger.error({ problems }, 'refusing to watch: a registry mint chainpay cannot handle')
          }
          recheckLater()
        })
      },
      Math.min(MAX_RECHECK_MS, 1000 * 2 ** (attempts - 1)),
    )
    timer.unref()
  }

  return {
    name: 'Solana registry mint check',
    // as any service: one not running has nothing to say of readiness
    notReadyReason: () =>
      !started
        ? undefined
        : (refused ??
          (unchecked.size === 0
            ? undefined
            : `the registry mints of ${[...unchecked].join(', ')} not checked yet`)),
    async start() {
      started = true
      const problems = await check()
      if (problems.length > 0) throw new Error(`refusing to start: ${problems.join('; ')}`)
      recheckLater()
    },
    async stop() {
      started = false
      clearTimeout(timer)
    },
  }
}
