// The Solana part of the chain simulator (simulator.ts): token accounts, signed transactions run as
// a validator runs them (solana-execution.ts), the accounts a node answers for, the ledger view they
// read, and tokens sent through the dev routes as wallets send them (docs/api.md, "Development
// endpoints").

import { DomainError, findAssetByContract, resolveAsset } from '@chainpay/domain'
import { base58 } from '@scure/base'
import { PublicKey } from '@solana/web3.js'
import { chainFormat } from './chain-format.js'
import {
  address,
  type ChainSimulator,
  isSolanaKey,
  landsAheadKey,
  type RunningNetwork,
  type SimulatorCore,
  SOL_DECIMALS,
} from './simulator-core.js'
import type { StoredTokenAccount, StoredTransfer } from './simulator-store.js'
import {
  executeSolanaTransaction,
  feeForMessage,
  simulateSolanaTransaction,
  wireSignature,
} from './solana-execution.js'
import { associatedTokenAddress } from './solana-instructions.js'
import type { SolanaLedgerView } from './solana-ledger.js'
import {
  MINT_LAMPORTS,
  SolanaRpcError,
  solanaRecordText,
  standInTokenOwner,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_ACCOUNT_LAMPORTS,
  TOKEN_PROGRAM_ID,
} from './solana-rpc-blocks.js'

export type SolanaSimulatorMethods = Pick<
  ChainSimulator,
  | 'tokenAccountsOf'
  | 'openTokenAccount'
  | 'sendSolanaTransaction'
  | 'simulateSolanaTransaction'
  | 'solanaFeeForMessage'
  | 'solanaAccount'
>

export function createSolanaSimulation(core: SimulatorCore) {
  const { store, registry, clock, logger, running, simulated, headOf, heightOfHash } = core

  const methods: SolanaSimulatorMethods = {
    async tokenAccountsOf(network, owner) {
      const name = simulated(network).definition.network
      const opened = store.tokenAccountsOf(name, owner)
      return [...opened, ...associatedHoldings(name, owner, opened)]
        .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
        .map((account) => ({
          ...account,
          decimals: findAssetByContract(registry, name, account.mint)?.decimals ?? 0,
        }))
    },

    async openTokenAccount(network, request) {
      const entry = simulated(network)
      const name = entry.definition.network
      const asset = resolveAsset(registry, { network: name, currency: request.currency })
      if (entry.definition.chain !== 'SOLANA' || asset.contract === null) {
        throw new DomainError(
          'VALIDATION_ERROR',
          'currency: token accounts hold an SPL token of a Solana network',
        )
      }
      const wanted: StoredTokenAccount = {
        address:
          request.address === undefined ? entry.format.newAddress() : address('address', request.address),
        owner: address('owner', request.owner),
        mint: asset.contract,
      }
      return store.inTransaction(() => {
        if (store.insertTokenAccount(name, wanted)) return wanted
        const held = store.tokenAccount(name, wanted.address) as StoredTokenAccount
        if (held.owner !== wanted.owner || held.mint !== wanted.mint) {
          throw new DomainError(
            'VALIDATION_ERROR',
            `address: ${wanted.address} is a token account of another owner or mint`,
          )
        }
        return held
      })
    },

    async sendSolanaTransaction(network, wire, sendOptions = {}) {
      const entry = simulated(network)
      const name = entry.definition.network
      if (entry.definition.chain !== 'SOLANA') {
        throw new DomainError('VALIDATION_ERROR', `${name} is no Solana network`)
      }
      headOf(entry)
      let options = sendOptions
      const aheadKey = core.landsAhead.size === 0 ? undefined : landsAheadKey(name, wireSignature(wire))
      const ahead = aheadKey === undefined ? undefined : core.landsAhead.get(aheadKey)
      if (aheadKey !== undefined && ahead !== undefined) {
        // the preflight passes it against a bank without them (refused as ever, nothing held lands)
        if (sendOptions.skipPreflight !== true) executeSolanaTransaction(wire, solanaLedger(name))
        core.landsAhead.delete(aheadKey)
        store.inTransaction(() => {
          for (const write of ahead) write()
        })
        // the leader runs it after them: on chain, failed if what it needs is gone
        options = { ...sendOptions, skipPreflight: true }
      }
      return store.inTransaction(() => {
        let executed: ReturnType<typeof executeSolanaTransaction>
        try {
          executed = executeSolanaTransaction(wire, solanaLedger(name), options)
        } catch (error) {
          // its fee payer cannot pay the fee any more: the leader drops it, the sender saw it accepted
          if (ahead === undefined || !(error instanceof SolanaRpcError)) throw error
          logger.info({ network: name, err: error }, 'signed transaction dropped by the leader')
          return { signature: wireSignature(wire) }
        }
        const { signature, payer, fee, transfers } = executed
        store.insertTransaction(
          name,
          {
            txHash: signature,
            from: payer,
            failure: executed.rendered.err === null ? null : 'INSTRUCTION_ERROR',
            transfers: transfers.map(({ from, to, contract, amountUnits, decimals }) => ({
              from,
              to,
              contract,
              amountUnits: amountUnits.toString(),
              decimals,
            })),
          },
          clock().toISOString(),
        )
        store.insertSolanaRecord(name, {
          signature,
          payer,
          feeUnits: fee,
          record: solanaRecordText(executed.rendered),
        })
        for (const account of executed.adopted) store.insertTokenAccount(name, account)
        for (const account of executed.opened) store.openFundedTokenAccount(name, account)
        for (const address of executed.closed) store.closeTokenAccount(name, address)
        for (const nonce of executed.nonces) store.putNonceAccount(name, nonce)
        logger.debug({ network: name, signature, fee }, 'signed transaction accepted')
        return { signature }
      })
    },

    async simulateSolanaTransaction(network, wire, simulationOptions) {
      const entry = simulated(network)
      headOf(entry)
      return simulateSolanaTransaction(wire, solanaLedger(entry.definition.network), simulationOptions)
    },

    async solanaFeeForMessage(network, messageBase64) {
      const entry = simulated(network)
      headOf(entry)
      return feeForMessage(messageBase64, solanaLedger(entry.definition.network))
    },

    async solanaAccount(network, address) {
      const name = simulated(network).definition.network
      const mint = registry.assets.find(
        (asset) => asset.network === name && asset.tokenStandard === 'SPL' && asset.contract === address,
      )
      if (mint !== undefined) {
        const program = core.token2022Mints?.includes(address) ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID
        return { lamports: MINT_LAMPORTS, mint: { program, decimals: mint.decimals } }
      }
      const ledger = solanaLedger(name)
      const nonce = ledger.nonceAccount(address)
      const unopened = ledger.unopenedTokenHolding(address)
      // a token account the simulator only saw paid: its owner is the stand-in blocks show
      const token =
        ledger.tokenAccount(address) ?? (unopened && { ...unopened, owner: standInTokenOwner(address) })
      return {
        lamports: ledger.lamports(address) + (unopened === undefined ? 0n : TOKEN_ACCOUNT_LAMPORTS),
        ...(token === undefined
          ? {}
          : { token: { ...token, decimals: ledger.mintDecimals(token.mint) ?? 0 } }),
        ...(nonce === undefined ? {} : { nonce }),
      }
    },
  }

  /**
   * The owner's associated token accounts the simulator only saw paid (a wallet paying an SPL
   * payment creates the account in the paying transaction): a real node lists them under the
   * owner, so getTokenAccountsByOwner does too
   */
  function associatedHoldings(
    name: string,
    owner: string,
    opened: readonly StoredTokenAccount[],
  ): StoredTokenAccount[] {
    if (!isSolanaKey(owner)) return []
    const ledger = solanaLedger(name)
    return registry.assets.flatMap((asset) => {
      if (asset.network !== name || asset.contract === null) return []
      const address = associatedTokenAddress(owner, asset.contract)
      if (opened.some((account) => account.address === address)) return []
      return ledger.unopenedTokenHolding(address)?.mint === asset.contract
        ? [{ address, owner, mint: asset.contract }]
        : []
    })
  }

  function solanaLedger(name: string): SolanaLedgerView {
    const head = store.head(name)
    return {
      headHeight: head?.height ?? 0,
      headHash: head?.hash ?? chainFormat('SOLANA').genesisParentHash,
      nonceAccount(address) {
        const account = store.nonceAccount(name, address)
        return account && { authority: account.authority, nonce: account.nonce }
      },
      blockhashHeight: (hash) => heightOfHash(running.get(name) as RunningNetwork, hash),
      processed: (signature) => store.transactionHeight(name, signature) !== undefined,
      lamports: (address) => store.solanaLamports(name, address),
      tokenAccount(address) {
        const account = store.tokenAccount(name, address)
        return account && { ...account, amount: store.solanaTokenAmount(name, address, account.mint) }
      },
      mintDecimals: (mint) => findAssetByContract(registry, name, mint)?.decimals,
      unopenedTokenHolding(address) {
        if (store.tokenAccount(name, address) !== undefined) return undefined
        // paid once, it exists until closed: emptied, it holds 0, as a real token account does; one
        // closed since exists again only while it holds tokens
        const closed = store.knownTokenAccount(name, address)
        for (const mint of store.contractsReceived(name, address)) {
          if (findAssetByContract(registry, name, mint) === undefined) continue
          const amount = store.solanaTokenAmount(name, address, mint)
          if (amount > 0n || !closed) return { mint, amount }
        }
        return undefined
      },
    }
  }

  /**
   * The transfers as a wallet makes them (SubmitOptions.asWallet): an SPL token sent to an owner
   * goes to its associated token account, opened in the same transaction with rent from the
   * sender (a createAssociatedTokenAccountIdempotent instruction); the rest is refused as a wallet
   * refuses it. Runs inside the write transaction.
   */
  function asSolanaWalletSends(
    name: string,
    transfers: readonly StoredTransfer[],
    fieldOf: (position: number, field: string) => string,
    opens: boolean,
  ): { transfers: StoredTransfer[]; opened: StoredTokenAccount[] } {
    const sent: StoredTransfer[] = []
    const opened: StoredTokenAccount[] = []
    transfers.forEach((transfer, position) => {
      const to = fieldOf(position, 'to')
      if (!isSolanaKey(transfer.to)) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `${to}: ${transfer.to} is no Solana address (32 bytes in base58)`,
        )
      }
      const mint = transfer.contract
      if (mint === null) {
        sent.push(transfer)
        return
      }
      if (!isSolanaKey(mint)) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `${fieldOf(position, 'contract')}: ${mint} is no Solana mint address (32 bytes in base58)`,
        )
      }
      if (registry.assets.some((asset) => asset.network === name && asset.contract === transfer.to)) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `${to}: ${transfer.to} is a token mint, which holds no tokens; send to the recipient's wallet address`,
        )
      }
      // a token account: opened, or seen paid a token (counterfeits included)
      const held =
        store.tokenAccount(name, transfer.to)?.mint ?? store.contractsReceived(name, transfer.to)[0]
      if (held !== undefined) {
        if (held !== mint) {
          throw new DomainError(
            'VALIDATION_ERROR',
            `${to}: ${transfer.to} is a token account of mint ${held}, not of ${mint}; send to the recipient's wallet address`,
          )
        }
        sent.push(transfer)
        return
      }
      // an address off the ed25519 curve belongs to no wallet: a token account (e.g. a payment's
      // generatedTokenAccount) the transfer opens, as before
      if (!PublicKey.isOnCurve(base58.decode(transfer.to))) {
        sent.push(transfer)
        return
      }
      const associated = associatedTokenAddress(transfer.to, mint)
      const opening =
        opens &&
        store.tokenAccount(name, associated) === undefined &&
        !opened.some((account) => account.address === associated)
      if (opening) {
        sent.push({
          to: associated,
          contract: null,
          amountUnits: TOKEN_ACCOUNT_LAMPORTS.toString(),
          decimals: SOL_DECIMALS,
        })
        opened.push({ address: associated, owner: transfer.to, mint })
      }
      sent.push({ ...transfer, to: associated })
    })
    return { transfers: sent, opened }
  }

  return { methods, solanaLedger, asSolanaWalletSends }
}
