export * from './payment-fixtures.js'
export * from './payment-streams.js'
