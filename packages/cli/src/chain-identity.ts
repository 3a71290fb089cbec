// Which chain an endpoint serves: TRON mainnet and Nile, or Solana mainnet and devnet, all answer
// the same calls, so a URL pasted under the wrong network works until the first payment is missed.
// The genesis block tells them apart; a node of the other chain is told by the call it answers.

import type { Chain } from '@chainpay/domain'

export interface KnownGenesis {
  chain: Chain
  /** the registry's network, null for a public chain chainpay does not serve */
  network: string | null
  label: string
}

/** TRON: the genesis blockID (its last 4 bytes are the chain id); Solana: getGenesisHash */
const KNOWN_GENESIS: Record<string, KnownGenesis> = {
  '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc': {
    chain: 'TRON',
    network: 'TRON',
    label: 'TRON mainnet',
  },
  '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc': {
    chain: 'TRON',
    network: 'TRON_NILE',
    label: 'TRON Nile testnet',
  },
  '0000000000000000de1aa88295e1fcf982742f773e0419c5a9c134c994a9059e': {
    chain: 'TRON',
    network: null,
    label: 'TRON Shasta testnet',
  },
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d': {
    chain: 'SOLANA',
    network: 'SOLANA',
    label: 'Solana mainnet-beta',
  },
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG: {
    chain: 'SOLANA',
    network: 'SOLANA_DEVNET',
    label: 'Solana devnet',
  },
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY': {
    chain: 'SOLANA',
    network: null,
    label: 'Solana testnet',
  },
}

export interface NodeEndpoint {
  rpcUrl: string
  /** TronGrid's TRON-PRO-API-KEY */
  apiKey?: string | undefined
  timeoutMs: number
}

export function identifyGenesis(genesis: string): KnownGenesis | undefined {
  return Object.hasOwn(KNOWN_GENESIS, genesis) ? KNOWN_GENESIS[genesis] : undefined
}

/**
 * The genesis block's id as a node of `chain` reports it; undefined when the node does not answer
 * with one (a pruned TRON node has no block 0, the chainpay simulator starts at 1).
 */
export async function readGenesis(chain: Chain, endpoint: NodeEndpoint): Promise<string | undefined> {
  if (chain === 'TRON') {
    const block = await tronCall(endpoint, 'wallet/getblockbynum', { num: 0 })
    const id = (block as { blockID?: unknown } | undefined)?.blockID
    return typeof id === 'string' ? id : undefined
  }
  const hash = await solanaCall(endpoint, 'getGenesisHash')
  return typeof hash === 'string' ? hash : undefined
}

/** whether the URL answers as a node of `chain` does: a TRON head block, or a Solana genesis hash */
export async function answersAs(chain: Chain, endpoint: NodeEndpoint): Promise<boolean> {
  if (chain === 'TRON') {
    const block = await tronCall(endpoint, 'wallet/getnowblock', {})
    return typeof (block as { blockID?: unknown } | undefined)?.blockID === 'string'
  }
  return typeof (await solanaCall(endpoint, 'getGenesisHash')) === 'string'
}

async function tronCall(endpoint: NodeEndpoint, path: string, body: object): Promise<unknown> {
  const headers: Record<string, string> = endpoint.apiKey ? { 'TRON-PRO-API-KEY': endpoint.apiKey } : {}
  return postJson(`${endpoint.rpcUrl.replace(/\/+$/, '')}/${path}`, body, headers, endpoint.timeoutMs)
}

/**
 * the lamports a Solana system account (no data) must hold to exist, as the node says
 * (getMinimumBalanceForRentExemption(0)); undefined when it does not answer that
 */
export async function readRentExemptMinimum(endpoint: NodeEndpoint): Promise<bigint | undefined> {
  const lamports = await solanaCall(endpoint, 'getMinimumBalanceForRentExemption', [0])
  return typeof lamports === 'number' && Number.isSafeInteger(lamports) ? BigInt(lamports) : undefined
}

async function solanaCall(endpoint: NodeEndpoint, method: string, params: unknown[] = []): Promise<unknown> {
  const call = { jsonrpc: '2.0', id: 1, method, params }
  const answer = await postJson(endpoint.rpcUrl, call, {}, endpoint.timeoutMs)
  return (answer as { result?: unknown } | undefined)?.result
}

/** the JSON answer of a 2xx, or undefined for anything else: these are probes, not the check itself */
async function postJson(
  url: string,
  body: object,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<unknown> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) return undefined
    return JSON.parse(await response.text())
  } catch {
    return undefined
  }
}
