// A signed TRON transaction as java-tron checks it before anything else (Manager.validateCommon,
// TransactionCapsule.validateSignature): raw_data_hex decoded with the protobuf definitions tronweb
// ships, txID = sha256(raw_data_hex), the JSON raw_data saying the same, and the one signature
// recovered with secp256k1 to the owner address (docs/chains.md, "The simulator as a node for
// sweeping", TRON).
import { createHash } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { utils } from 'tronweb'

type Json = Record<string, unknown>

/** a contract the simulated node executes, as deserializeTransaction prints its value */
export interface DecodedTronTransaction {
  txID: string
  rawDataHex: string
  type: string
  /** the contract's value (41-prefixed hex addresses, numbers as tronweb decodes them) */
  value: Json
  refBlockBytes: string
  refBlockHash: string
  expiration: number
  timestamp: number
  feeLimit: number
  signatures: string[]
  /** protobuf bytes of the transaction without `ret`: what bandwidth counts */
  serializedBytes: number
}

/** why a transaction is refused: java-tron's broadcast code and message text */
export class TronRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

const EXECUTED_TYPES = new Set([
  'TransferContract',
  'TriggerSmartContract',
  'FreezeBalanceV2Contract',
  'DelegateResourceContract',
  'UnDelegateResourceContract',
])

/** decodes and checks a broadcasttransaction body; throws TronRefusal as java-tron answers */
export function decodeSignedTronTransaction(body: Json): DecodedTronTransaction {
  const rawDataHex = String(body.raw_data_hex ?? '').toLowerCase()
  const rawData = (body.raw_data ?? {}) as Json
  const contract = ((rawData.contract ?? []) as Json[])[0]
  const type = String(contract?.type ?? '')
  if (!/^([0-9a-f]{2})+$/.test(rawDataHex) || contract === undefined) {
    throw new TronRefusal('OTHER_ERROR', 'raw_data_hex and raw_data.contract are required')
  }
  if (!EXECUTED_TYPES.has(type)) {
    throw new TronRefusal('CONTRACT_VALIDATE_ERROR', `the simulated node does not execute ${type}`)
  }
  let decoded: Json
  try {
    decoded = utils.deserializeTx.deserializeTransaction(type, rawDataHex) as Json
  } catch (error) {
    throw new TronRefusal('OTHER_ERROR', `raw_data_hex is no ${type}: ${(error as Error).message}`)
  }
  const txID = createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex')
  if (String(body.txID ?? '').toLowerCase() !== txID) {
    throw new TronRefusal('SIGERROR', `txID is not sha256(raw_data_hex) = ${txID}`)
  }
  const decodedContract = (decoded.contract as Json[])[0] as { parameter: { value: Json } }
  // tronweb prints bytes as upper-case hex; java-tron prints lower case
  const value = Object.fromEntries(
    Object.entries(decodedContract.parameter.value).map(([key, field]) => [
      key,
      typeof field === 'string' ? field.toLowerCase() : field,
    ]),
  )
  const refBlockHash = String(decoded.ref_block_hash).toLowerCase()
  const sent = ((contract.parameter ?? {}) as Json).value as Json | undefined
  // the JSON must say what the signed bytes say (java-tron signs and executes the bytes)
  const same =
    sent !== undefined &&
    Object.entries(sent).every(([key, field]) => {
      const ours = value[key]
      if (ours === undefined) return field === 0 || field === '' || field === false
      return String(ours).toLowerCase() === String(field).toLowerCase()
    }) &&
    Number(rawData.expiration) === Number(decoded.expiration) &&
    String(rawData.ref_block_hash ?? '').toLowerCase() === refBlockHash
  if (!same) throw new TronRefusal('SIGERROR', 'raw_data does not match raw_data_hex')
  const signatures = ((body.signature ?? []) as unknown[]).map((signature) => String(signature).toLowerCase())
  const owner = String(value.owner_address ?? '').toLowerCase()
  if (signatures.length !== 1) {
    throw new TronRefusal('SIGERROR', `a transaction of ${owner} carries exactly one signature here`)
  }
  if (signerOf(txID, signatures[0] as string) !== owner) {
    throw new TronRefusal('SIGERROR', 'Validate signature error: sig error')
  }
  return {
    txID,
    rawDataHex,
    type,
    value,
    refBlockBytes: String(decoded.ref_block_bytes).toLowerCase(),
    refBlockHash,
    expiration: Number(decoded.expiration),
    timestamp: Number(decoded.timestamp),
    feeLimit: Number(decoded.fee_limit ?? 0),
    signatures,
    serializedBytes: transactionBytes(rawDataHex, signatures),
  }
}

/** the 41-prefixed hex address whose key made `signature` (r || s || v) over the txID */
function signerOf(txID: string, signature: string): string | undefined {
  if (!/^[0-9a-f]{130}$/.test(signature)) return undefined
  const v = Number.parseInt(signature.slice(128), 16)
  const recovery = v >= 27 ? v - 27 : v
  if (recovery !== 0 && recovery !== 1) return undefined
  try {
    const recovered = Buffer.concat([Buffer.from([recovery]), Buffer.from(signature.slice(0, 128), 'hex')])
    const publicKey = secp256k1.recoverPublicKey(recovered, Buffer.from(txID, 'hex'), { prehash: false })
    const point = secp256k1.Point.fromBytes(publicKey).toBytes(false)
    return Buffer.from(utils.crypto.computeAddress(point)).toString('hex')
  } catch {
    return undefined
  }
}

/** Transaction { raw_data = 1; signature = 2 } as protobuf, without ret */
function transactionBytes(rawDataHex: string, signatures: string[]): number {
  const field = (bytes: number) => 1 + varintLength(bytes) + bytes
  return (
    field(rawDataHex.length / 2) +
    signatures.reduce((total, signature) => total + field(signature.length / 2), 0)
  )
}

function varintLength(value: number): number {
  let length = 1
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) length += 1
  return length
}

/** java-tron's TriggerSmartContract transaction, unsigned, referencing the head block */
export function unsignedTriggerSmartContract(
  value: { owner_address: string; contract_address: string; data: string },
  feeLimit: number,
  head: { height: number; hash: string; timeMs: number },
): Json {
  const raw_data = {
    contract: [
      {
        parameter: { value, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' },
        type: 'TriggerSmartContract',
      },
    ],
    ref_block_bytes: (head.height & 0xffff).toString(16).padStart(4, '0'),
    ref_block_hash: head.hash.slice(16, 32),
    // java-tron's builders: the head block's time plus 60 s
    expiration: head.timeMs + 60_000,
    fee_limit: feeLimit,
    timestamp: head.timeMs,
  }
  const pb = utils.transaction.txJsonToPb({ raw_data } as never)
  return {
    visible: false,
    txID: utils.transaction.txPbToTxID(pb).replace(/^0x/, ''),
    raw_data,
    raw_data_hex: utils.transaction.txPbToRawDataHex(pb).toLowerCase(),
  }
}

/** broadcasthex's body (a whole protocol.Transaction as hex) as broadcasttransaction's JSON */
export function signedTransactionOfHex(hex: string): Json {
  const { Transaction } = (globalThis as unknown as { TronWebProto: TronWebProto }).TronWebProto
  let transaction: ReturnType<TronWebProto['Transaction']['deserializeBinary']>
  try {
    transaction = Transaction.deserializeBinary(Buffer.from(hex, 'hex'))
  } catch (error) {
    throw new TronRefusal(
      'OTHER_ERROR',
      `transaction is no protocol.Transaction: ${(error as Error).message}`,
    )
  }
  const raw = transaction.getRawData()
  const rawDataHex = Buffer.from(raw.serializeBinary()).toString('hex')
  const type = CONTRACT_TYPES[raw.getContractList()[0]?.getType() ?? -1]
  if (type === undefined)
    throw new TronRefusal('CONTRACT_VALIDATE_ERROR', 'the simulated node does not execute it')
  return {
    txID: createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex'),
    raw_data: utils.deserializeTx.deserializeTransaction(type, rawDataHex),
    raw_data_hex: rawDataHex,
    signature: transaction.getSignatureList_asU8().map((signature) => Buffer.from(signature).toString('hex')),
  }
}

/** protocol.Transaction.Contract.ContractType numbers of the contracts executed here */
const CONTRACT_TYPES: Record<number, string> = {
  1: 'TransferContract',
  31: 'TriggerSmartContract',
  54: 'FreezeBalanceV2Contract',
  57: 'DelegateResourceContract',
  58: 'UnDelegateResourceContract',
}

/** the part of tronweb's generated protobuf classes used here (they set globalThis.TronWebProto) */
interface TronWebProto {
  Transaction: {
    deserializeBinary(bytes: Uint8Array): {
      getRawData(): { serializeBinary(): Uint8Array; getContractList(): Array<{ getType(): number }> }
      getSignatureList_asU8(): Uint8Array[]
    }
  }
}
