export * from './payment-fixtures.js'
