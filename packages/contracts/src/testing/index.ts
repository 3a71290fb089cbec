export * from './payment-event-messages.js'
