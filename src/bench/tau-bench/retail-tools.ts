import { pyJsonDumps } from './py/py-json.js';
import {
  pyAbs,
  pyAdd,
  pyAppend,
  pyCompare,
  pyCountOf,
  pyEq,
  pyExtend,
  pyGet,
  pyIn,
  pyIter,
  pyLen,
  pyLower,
  pyRound,
  pySet,
  pySorted,
  pySub,
  pyTruthy,
  pyZip,
} from './py/py-ops.js';
import { pyStrCompare, pyStr } from './py/py-repr.js';
import { PyException, type PyDict, type PyValue } from './py/py-value.js';
import type { TauToolImpl } from './tau-tool.js';
import type { TauData } from './tau-database.js';
import { calculateTool, thinkTool, transferTool } from './common-tools.js';

/*
 * The retail domain's tools, re-written from the original's behaviour (tau_bench/envs/retail/tools/*.py at 59a200c),
 * check by check and message by message; quirks (an exchange's price difference is rounded, a modification's is
 * not) are the original's, see docs/tau-bench-exactness.md.
 */

/** The session's own copy of an order's user's payment method (for a balance change). */
function ownedMethod(data: TauData, order: PyValue, paymentMethodId: PyValue): PyValue {
  return pyGet(pyGet(data.table('users').mut(pyGet(order, 'user_id')), 'payment_methods'), paymentMethodId);
}
function methodsOf(data: TauData, order: PyValue): PyValue {
  return pyGet(data.table('users').get(pyGet(order, 'user_id')), 'payment_methods');
}
/** `[item for item in order["items"] if item["item_id"] == item_id][0]`. */
function firstItem(order: PyValue, itemId: PyValue): PyValue {
  for (const item of pyIter(pyGet(order, 'items'))) if (pyEq(pyGet(item, 'item_id'), itemId)) return item;
  throw new PyException('IndexError', 'list index out of range');
}
/** The original's duplicate-aware check that every item id is in the order; returns the first missing one. */
function missingItem(order: PyValue, itemIds: PyValue): PyValue | undefined {
  const all = pyIter(pyGet(order, 'items')).map((item) => pyGet(item, 'item_id'));
  for (const itemId of pyIter(itemIds)) if (pyCountOf(itemIds, itemId) > pyCountOf(all, itemId)) return itemId;
  return undefined;
}
/** The summed price difference of swapping items for variants, or the original's error for an unavailable one. */
function priceDifference(
  data: TauData,
  order: PyValue,
  itemIds: PyValue,
  newItemIds: PyValue,
): PyValue | { error: string } {
  const products = data.table('products');
  let diff: PyValue = 0;
  for (const [itemId, newItemId] of pyZip(itemIds, newItemIds)) {
    const item = firstItem(order, itemId);
    const productId = pyGet(item, 'product_id');
    const variants = pyGet(products.get(productId), 'variants');
    if (!(pyIn(newItemId, variants) && pyTruthy(pyGet(pyGet(variants, newItemId), 'available')))) {
      return { error: `Error: new item ${pyStr(newItemId)} not found or available` };
    }
    diff = pyAdd(diff, pySub(pyGet(pyGet(variants, newItemId), 'price'), pyGet(item, 'price')), '+=');
  }
  return diff;
}
const isError = (v: PyValue | { error: string }): v is { error: string } =>
  v instanceof Object && 'error' in v && !(v instanceof Map);

const cancelPendingOrder: TauToolImpl = {
  name: 'cancel_pending_order',
  params: ['order_id', 'reason'],
  run(data, [orderId, reason]) {
    const orders = data.table('orders');
    if (!orders.has(orderId)) return 'Error: order not found';
    const order = orders.get(orderId);
    if (!pyEq(pyGet(order, 'status'), 'pending')) return 'Error: non-pending order cannot be cancelled';
    if (!(pyEq(reason, 'no longer needed') || pyEq(reason, 'ordered by mistake'))) return 'Error: invalid reason';
    const owned = orders.mut(orderId);
    const refunds: PyValue[] = [];
    for (const payment of pyIter(pyGet(owned, 'payment_history'))) {
      const paymentId = pyGet(payment, 'payment_method_id');
      refunds.push(
        new Map<string, PyValue>([
          ['transaction_type', 'refund'],
          ['amount', pyGet(payment, 'amount')],
          ['payment_method_id', paymentId],
        ]),
      );
      if (pyIn('gift_card', paymentId)) {
        const method = ownedMethod(data, owned, paymentId);
        pySet(method, 'balance', pyAdd(pyGet(method, 'balance'), pyGet(payment, 'amount'), '+='));
        pySet(method, 'balance', pyRound(pyGet(method, 'balance'), 2));
      }
    }
    pySet(owned, 'status', 'cancelled');
    pySet(owned, 'cancel_reason', reason);
    pyExtend(pyGet(owned, 'payment_history'), refunds);
    return pyJsonDumps(owned);
  },
};

const exchangeDeliveredOrderItems: TauToolImpl = {
  name: 'exchange_delivered_order_items',
  params: ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  run(data, [orderId, itemIds, newItemIds, paymentMethodId]) {
    const orders = data.table('orders');
    if (!orders.has(orderId)) return 'Error: order not found';
    const order = orders.get(orderId);
    if (!pyEq(pyGet(order, 'status'), 'delivered')) return 'Error: non-delivered order cannot be exchanged';
    const missing = missingItem(order, itemIds);
    if (missing !== undefined) return `Error: ${pyStr(missing)} not found`;
    if (pyLen(itemIds) !== pyLen(newItemIds)) return 'Error: the number of items to be exchanged should match';
    const diff = priceDifference(data, order, itemIds, newItemIds);
    if (isError(diff)) return diff.error;
    const diffPrice = pyRound(diff, 2);
    const methods = methodsOf(data, order);
    if (!pyIn(paymentMethodId, methods)) return 'Error: payment method not found';
    const method = pyGet(methods, paymentMethodId);
    if (pyEq(pyGet(method, 'source'), 'gift_card') && pyCompare('<', pyGet(method, 'balance'), diffPrice)) {
      return 'Error: insufficient gift card balance to pay for the price difference';
    }
    const owned = orders.mut(orderId);
    pySet(owned, 'status', 'exchange requested');
    pySet(owned, 'exchange_items', pySorted(itemIds));
    pySet(owned, 'exchange_new_items', pySorted(newItemIds));
    pySet(owned, 'exchange_payment_method_id', paymentMethodId);
    pySet(owned, 'exchange_price_difference', diffPrice);
    return pyJsonDumps(owned);
  },
};

const findUserIdByEmail: TauToolImpl = {
  name: 'find_user_id_by_email',
  params: ['email'],
  run(data, [email]) {
    for (const [userId, profile] of data.table('users').entries()) {
      if (pyLower(pyGet(profile, 'email')) === pyLower(email)) return userId;
    }
    return 'Error: user not found';
  },
};

const findUserIdByNameZip: TauToolImpl = {
  name: 'find_user_id_by_name_zip',
  params: ['first_name', 'last_name', 'zip'],
  run(data, [firstName, lastName, zip]) {
    for (const [userId, profile] of data.table('users').entries()) {
      const name = pyGet(profile, 'name');
      if (
        pyLower(pyGet(name, 'first_name')) === pyLower(firstName) &&
        pyLower(pyGet(name, 'last_name')) === pyLower(lastName) &&
        pyEq(pyGet(pyGet(profile, 'address'), 'zip'), zip)
      )
        return userId;
    }
    return 'Error: user not found';
  },
};

function detailsTool(name: string, param: string, table: string, missing: string): TauToolImpl {
  return {
    name,
    params: [param],
    run(data, [id]) {
      const t = data.table(table);
      return t.has(id) ? pyJsonDumps(t.get(id)) : missing;
    },
  };
}

const listAllProductTypes: TauToolImpl = {
  name: 'list_all_product_types',
  params: [],
  run(data) {
    const byName: PyDict = new Map();
    for (const product of data.table('products').values()) {
      const name = pyGet(product, 'name');
      if (typeof name !== 'string')
        throw new PyException('TypeError', `unhashable type or non-string product name: ${pyStr(name)}`);
      byName.set(name, pyGet(product, 'product_id'));
    }
    return pyJsonDumps(new Map([...byName].sort((a, b) => pyStrCompare(a[0], b[0]))));
  },
};

const ADDRESS_PARAMS = ['address1', 'address2', 'city', 'state', 'country', 'zip'] as const;
const address = (values: PyValue[]): PyDict => new Map(ADDRESS_PARAMS.map((k, i) => [k, values[i]]));

const modifyPendingOrderAddress: TauToolImpl = {
  name: 'modify_pending_order_address',
  params: ['order_id', ...ADDRESS_PARAMS],
  run(data, [orderId, ...rest]) {
    const orders = data.table('orders');
    if (!orders.has(orderId)) return 'Error: order not found';
    if (!pyEq(pyGet(orders.get(orderId), 'status'), 'pending')) return 'Error: non-pending order cannot be modified';
    const owned = orders.mut(orderId);
    pySet(owned, 'address', address(rest));
    return pyJsonDumps(owned);
  },
};

const modifyPendingOrderItems: TauToolImpl = {
  name: 'modify_pending_order_items',
  params: ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  run(data, [orderId, itemIds, newItemIds, paymentMethodId]) {
    const orders = data.table('orders');
    if (!orders.has(orderId)) return 'Error: order not found';
    const order = orders.get(orderId);
    if (!pyEq(pyGet(order, 'status'), 'pending')) return 'Error: non-pending order cannot be modified';
    const missing = missingItem(order, itemIds);
    if (missing !== undefined) return `Error: ${pyStr(missing)} not found`;
    if (pyLen(itemIds) !== pyLen(newItemIds)) return 'Error: the number of items to be exchanged should match';
    const diffPrice = priceDifference(data, order, itemIds, newItemIds); // not rounded, as in the original
    if (isError(diffPrice)) return diffPrice.error;
    const methods = methodsOf(data, order);
    if (!pyIn(paymentMethodId, methods)) return 'Error: payment method not found';
    const method = pyGet(methods, paymentMethodId);
    if (pyEq(pyGet(method, 'source'), 'gift_card') && pyCompare('<', pyGet(method, 'balance'), diffPrice)) {
      return 'Error: insufficient gift card balance to pay for the new item';
    }
    const owned = orders.mut(orderId);
    pyAppend(
      pyGet(owned, 'payment_history'),
      new Map<string, PyValue>([
        ['transaction_type', pyCompare('>', diffPrice, 0) ? 'payment' : 'refund'],
        ['amount', pyAbs(diffPrice)],
        ['payment_method_id', paymentMethodId],
      ]),
    );
    if (pyEq(pyGet(method, 'source'), 'gift_card')) {
      const own = ownedMethod(data, owned, paymentMethodId);
      pySet(own, 'balance', pySub(pyGet(own, 'balance'), diffPrice, '-='));
      pySet(own, 'balance', pyRound(pyGet(own, 'balance'), 2));
    }
    const products = data.table('products');
    for (const [itemId, newItemId] of pyZip(itemIds, newItemIds)) {
      const item = firstItem(owned, itemId);
      pySet(item, 'item_id', newItemId);
      pySet(
        item,
        'price',
        pyGet(pyGet(pyGet(products.get(pyGet(item, 'product_id')), 'variants'), newItemId), 'price'),
      );
      pySet(
        item,
        'options',
        pyGet(pyGet(pyGet(products.get(pyGet(item, 'product_id')), 'variants'), newItemId), 'options'),
      );
    }
    pySet(owned, 'status', 'pending (item modified)');
    return pyJsonDumps(owned);
  },
};

const modifyPendingOrderPayment: TauToolImpl = {
  name: 'modify_pending_order_payment',
  params: ['order_id', 'payment_method_id'],
  run(data, [orderId, paymentMethodId]) {
    const orders = data.table('orders');
    if (!orders.has(orderId)) return 'Error: order not found';
    const order = orders.get(orderId);
    if (!pyEq(pyGet(order, 'status'), 'pending')) return 'Error: non-pending order cannot be modified';
    const methods = methodsOf(data, order);
    if (!pyIn(paymentMethodId, methods)) return 'Error: payment method not found';
    const history = pyGet(order, 'payment_history');
    if (pyLen(history) > 1 || !pyEq(pyGet(pyGet(history, 0), 'transaction_type'), 'payment')) {
      return 'Error: there should be exactly one payment for a pending order';
    }
    if (pyEq(pyGet(pyGet(history, 0), 'payment_method_id'), paymentMethodId)) {
      return 'Error: the new payment method should be different from the current one';
    }
    const amount = pyGet(pyGet(history, 0), 'amount');
    const method = pyGet(methods, paymentMethodId);
    if (pyEq(pyGet(method, 'source'), 'gift_card') && pyCompare('<', pyGet(method, 'balance'), amount)) {
      return 'Error: insufficient gift card balance to pay for the order';
    }
    const owned = orders.mut(orderId);
    const ownedHistory = pyGet(owned, 'payment_history');
    const oldMethodId = pyGet(pyGet(ownedHistory, 0), 'payment_method_id');
    pyExtend(ownedHistory, [
      new Map<string, PyValue>([
        ['transaction_type', 'payment'],
        ['amount', amount],
        ['payment_method_id', paymentMethodId],
      ]),
      new Map<string, PyValue>([
        ['transaction_type', 'refund'],
        ['amount', amount],
        ['payment_method_id', oldMethodId],
      ]),
    ]);
    if (pyEq(pyGet(method, 'source'), 'gift_card')) {
      const own = ownedMethod(data, owned, paymentMethodId);
      pySet(own, 'balance', pySub(pyGet(own, 'balance'), amount, '-='));
      pySet(own, 'balance', pyRound(pyGet(own, 'balance'), 2));
    }
    if (pyIn('gift_card', pyGet(pyGet(ownedHistory, 0), 'payment_method_id'))) {
      const old = ownedMethod(data, owned, pyGet(pyGet(ownedHistory, 0), 'payment_method_id'));
      pySet(old, 'balance', pyAdd(pyGet(old, 'balance'), amount, '+='));
      pySet(old, 'balance', pyRound(pyGet(old, 'balance'), 2));
    }
    return pyJsonDumps(owned);
  },
};

const modifyUserAddress: TauToolImpl = {
  name: 'modify_user_address',
  params: ['user_id', ...ADDRESS_PARAMS],
  run(data, [userId, ...rest]) {
    const users = data.table('users');
    if (!users.has(userId)) return 'Error: user not found';
    const owned = users.mut(userId);
    pySet(owned, 'address', address(rest));
    return pyJsonDumps(owned);
  },
};

const returnDeliveredOrderItems: TauToolImpl = {
  name: 'return_delivered_order_items',
  params: ['order_id', 'item_ids', 'payment_method_id'],
  run(data, [orderId, itemIds, paymentMethodId]) {
    const orders = data.table('orders');
    if (!orders.has(orderId)) return 'Error: order not found';
    const order = orders.get(orderId);
    if (!pyEq(pyGet(order, 'status'), 'delivered')) return 'Error: non-delivered order cannot be returned';
    if (!pyIn(paymentMethodId, methodsOf(data, order))) return 'Error: payment method not found';
    if (
      !pyIn('gift_card', paymentMethodId) &&
      !pyEq(paymentMethodId, pyGet(pyGet(pyGet(order, 'payment_history'), 0), 'payment_method_id'))
    ) {
      return 'Error: payment method should be either the original payment method or a gift card';
    }
    if (missingItem(order, itemIds) !== undefined) return 'Error: some item not found';
    const owned = orders.mut(orderId);
    pySet(owned, 'status', 'return requested');
    pySet(owned, 'return_items', pySorted(itemIds));
    pySet(owned, 'return_payment_method_id', paymentMethodId);
    return pyJsonDumps(owned);
  },
};

/** The retail tools by name. */
export const RETAIL_TOOLS: readonly TauToolImpl[] = [
  calculateTool,
  cancelPendingOrder,
  exchangeDeliveredOrderItems,
  findUserIdByEmail,
  findUserIdByNameZip,
  detailsTool('get_order_details', 'order_id', 'orders', 'Error: order not found'),
  detailsTool('get_product_details', 'product_id', 'products', 'Error: product not found'),
  detailsTool('get_user_details', 'user_id', 'users', 'Error: user not found'),
  listAllProductTypes,
  modifyPendingOrderAddress,
  modifyPendingOrderItems,
  modifyPendingOrderPayment,
  modifyUserAddress,
  returnDeliveredOrderItems,
  thinkTool,
  transferTool,
];
