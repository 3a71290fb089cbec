export * from './payment-document.js'
export * from './projection-service.js'
