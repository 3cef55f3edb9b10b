// Runs the vendor's published client, emergepay-sdk (pinned in the
// repository's package.json), against the sandbox with only its
// environmentUrl pointed there. Every call must succeed and every answer
// must carry the published fields as strings. Input: SANDBOX_URL, OID,
// TOKEN in the environment. Output: one JSON line per call on stdout, then
// "N passed, 0 failed"; exit status 1 on the first failure.
'use strict';

const { emergepaySdk } = require('emergepay-sdk');

const published = [
  'externalTransactionId', 'transactionType', 'resultStatus', 'resultMessage', 'uniqueTransId',
  'transactionReference', 'approvalNumberResult', 'amount', 'amountBalance', 'amountProcessed',
  'amountTaxed', 'amountTipped', 'billingName', 'maskedAccount', 'accountCardType', 'accountExpiryDate',
  'accountEntryMethod', 'avsResponseCode', 'avsResponseText', 'cvvResponseCode', 'cvvResponseText',
  'batchNumber', 'cashier', 'isPartialApproval',
];

const sdk = new emergepaySdk({
  oid: process.env.OID,
  authToken: process.env.TOKEN,
  environmentUrl: process.env.SANDBOX_URL,
  integratorAppVersion: 'sdk contract test 1.0',
});

let passed = 0;

async function step(name, wantType, fn) {
  let res;
  try {
    res = await fn();
  } catch (err) {
    console.error(`${name}: ${err && err.message ? err.message : JSON.stringify(err)}`);
    console.log(`${passed} passed, 1 failed`);
    process.exit(1);
  }
  const t = res && res.data;
  const problems = [];
  if (!t) problems.push('no data');
  else {
    for (const f of published) {
      if (typeof t[f] !== 'string') problems.push(`${f} is ${typeof t[f]}`);
    }
    if (t.resultStatus !== 'true') problems.push(`resultStatus ${t.resultStatus} (${t.resultMessage})`);
    if (t.transactionType !== wantType) problems.push(`transactionType ${t.transactionType}, want ${wantType}`);
    if (!/^[0-9a-f]{32}-[0-9a-f]{32}$/.test(t.uniqueTransId)) problems.push('uniqueTransId shape');
  }
  if (problems.length) {
    console.error(`${name}: ${problems.join('; ')}`);
    console.log(`${passed} passed, 1 failed`);
    process.exit(1);
  }
  passed++;
  console.log(JSON.stringify({ step: name, transactionType: t.transactionType, uniqueTransId: t.uniqueTransId,
    externalTransactionId: t.externalTransactionId, amountProcessed: t.amountProcessed }));
  return t;
}

const card = { cardNumber: '4111111111111111', cardExpirationDate: '12-30' };
const bank = { accountHolderName: 'Dana Doe', accountNumber: '000123456789', routingNumber: '011401533' };
const id = () => sdk.getExternalTransactionId();

(async () => {
  const sale = await step('sale', 'CreditSale', () => sdk.saleTransaction({
    ...card, amount: '10.00', tipAmount: '1.00', taxAmount: '0.80', cardSecurityCode: '123',
    billingName: 'Dana Doe', billingAddress: '1 Main St', billingPostalCode: '98101',
    transactionReference: 'INV-1001', cashierId: 'cashier-1', externalTransactionId: id(),
    idempotencyKey: sdk.getIdempotencyKey(),
    level2: { purchaseId: 'P-1', purchaseOrderNumber: 'PO-1', isTaxExempt: false },
  }));
  const auth = await step('authorization', 'CreditAuth', () => sdk.authorizationTransaction({
    ...card, amount: '25.00', externalTransactionId: id() }));
  await step('void', 'Void', () => sdk.voidTransaction({ uniqueTransId: auth.uniqueTransId, externalTransactionId: id() }));
  await step('refund', 'CreditReturn', () => sdk.refundTransaction({ ...card, amount: '3.00', externalTransactionId: id() }));
  const token = await step('tokenize', 'CreditSaveCard', () => sdk.tokenizeAccountTransaction({
    ...card, cardSecurityCode: '123', externalTransactionId: id() }));
  await step('ach sale', 'AchSale', () => sdk.achSaleTransaction({ ...bank, amount: '40.00', accountType: 'Checking',
    checkNumber: '1001', externalTransactionId: id() }));
  await step('ach refund', 'AchReturn', () => sdk.achRefundTransaction({ ...bank, amount: '15.00', externalTransactionId: id() }));
  await step('ach tokenize', 'AchSaveAccount', () => sdk.achTokenizeAccountTransaction({ ...bank, accountType: 'Savings',
    externalTransactionId: id() }));
  const back = await step('retrieve', 'CreditSale', () => sdk.retrieveTransaction(sale.externalTransactionId));
  if (back.uniqueTransId !== sale.uniqueTransId) {
    console.error('retrieve: another transaction came back');
    process.exit(1);
  }
  const paid = await step('tokenized payment', 'CreditSale', () => sdk.tokenizedPaymentTransaction({
    uniqueTransId: token.uniqueTransId, amount: '5.00', externalTransactionId: id() }));
  const auth2 = await step('tokenized authorization', 'CreditAuth', () => sdk.tokenizedAuthTransaction({
    uniqueTransId: token.uniqueTransId, amount: '7.00', externalTransactionId: id() }));
  await step('tokenized refund', 'CreditReturn', () => sdk.tokenizedRefundTransaction({
    uniqueTransId: paid.uniqueTransId, amount: '2.00', externalTransactionId: id() }));
  await step('adjust (sale tip)', 'Adjustment', () => sdk.adjustTransaction({
    uniqueTransId: sale.uniqueTransId, adjustmentType: 'SaleAdjust', tipAmount: '2.00', externalTransactionId: id() }));
  await step('adjust (authorization)', 'Adjustment', () => sdk.adjustTransaction({
    uniqueTransId: auth2.uniqueTransId, adjustmentType: 'AuthAdjust', amount: '8.00', externalTransactionId: id() }));
  await step('force', 'CreditForce', () => sdk.forceTransaction({
    uniqueTransId: auth2.uniqueTransId, externalTransactionId: id() }));
  console.log(`${passed} passed, 0 failed`);
})();
