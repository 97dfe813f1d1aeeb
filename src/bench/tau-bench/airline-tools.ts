import { pyJsonDumps } from './py/py-json.js';
import {
  pyAdd,
  pyAppend,
  pyCompare,
  pyDel,
  pyDictWithout,
  pyEq,
  pyExtend,
  pyGet,
  pyIn,
  pyIntOfStr,
  pyIter,
  pyLen,
  pyMax,
  pyMul,
  pyNeg,
  pySet,
  pySub,
  pySum,
  pyUpdate,
} from './py/py-ops.js';
import { pyStr } from './py/py-repr.js';
import { pyDeepCopy, type PyDict, type PyValue } from './py/py-value.js';
import type { TauToolImpl } from './tau-tool.js';
import type { TauData } from './tau-database.js';
import { calculateTool, thinkTool, transferTool } from './common-tools.js';

/*
 * The airline domain's tools, re-written from the original's behaviour (tau_bench/envs/airline/tools/*.py at
 * 59a200c). Every check, message, arithmetic step and quirk follows the original line by line, including the ones
 * listed in docs/tau-bench-exactness.md (fixed reservation ids, three certificate ids, unpadded dates in the
 * one-stop search, "user not found" for a missing reservation).
 */

const paymentMethodsOf = (data: TauData, reservation: PyValue): PyValue =>
  pyGet(data.table('users').get(pyGet(reservation, 'user_id')), 'payment_methods');

const bookReservation: TauToolImpl = {
  name: 'book_reservation',
  params: [
    'user_id',
    'origin',
    'destination',
    'flight_type',
    'cabin',
    'flights',
    'passengers',
    'payment_methods',
    'total_baggages',
    'nonfree_baggages',
    'insurance',
  ],
  run(
    data,
    [
      userId,
      origin,
      destination,
      flightType,
      cabin,
      flights,
      passengers,
      paymentMethods,
      totalBaggages,
      nonfreeBaggages,
      insurance,
    ],
  ) {
    const reservations = data.table('reservations');
    const users = data.table('users');
    if (!users.has(userId)) return 'Error: user not found';
    const user = users.get(userId);
    // the original assumes at most 3 reservations per task: a fourth overwrites HATHAV
    let reservationId = 'HATHAT';
    if (reservations.has(reservationId)) {
      reservationId = 'HATHAU';
      if (reservations.has(reservationId)) reservationId = 'HATHAV';
    }
    const reservation: PyDict = new Map<string, PyValue>([
      ['reservation_id', reservationId],
      ['user_id', userId],
      ['origin', origin],
      ['destination', destination],
      ['flight_type', flightType],
      ['cabin', cabin],
      ['flights', pyDeepCopy(flights)],
      ['passengers', passengers],
      ['payment_history', paymentMethods],
      ['created_at', '2024-05-15T15:00:00'],
      ['total_baggages', totalBaggages],
      ['nonfree_baggages', nonfreeBaggages],
      ['insurance', insurance],
    ]);
    const flightTable = data.table('flights');
    let totalPrice: PyValue = 0;
    for (const flight of pyIter(reservation.get('flights')!)) {
      const priced = priceFlight(flightTable, flight, cabin, pyLen(passengers));
      if (typeof priced === 'string') return priced;
      totalPrice = pyAdd(totalPrice, priced, '+=');
    }
    if (pyEq(insurance, 'yes')) totalPrice = pyAdd(totalPrice, pyMul(30, pyLen(passengers)), '+=');
    totalPrice = pyAdd(totalPrice, pyMul(50, nonfreeBaggages), '+=');

    const userMethods = pyGet(user, 'payment_methods');
    for (const paymentMethod of pyIter(paymentMethods)) {
      const paymentId = pyGet(paymentMethod, 'payment_id');
      const amount = pyGet(paymentMethod, 'amount');
      if (!pyIn(paymentId, userMethods)) return `Error: payment method ${pyStr(paymentId)} not found`;
      const source = pyGet(pyGet(userMethods, paymentId), 'source');
      if (pyEq(source, 'gift_card') || pyEq(source, 'certificate')) {
        if (pyCompare('<', pyGet(pyGet(userMethods, paymentId), 'amount'), amount)) {
          return `Error: not enough balance in payment method ${pyStr(paymentId)}`;
        }
      }
    }
    const paid = (): PyValue => pySum(pyIter(paymentMethods).map((p) => pyGet(p, 'amount')));
    if (!pyEq(paid(), totalPrice)) {
      return `Error: payment amount does not add up, total price is ${pyStr(totalPrice)}, but paid ${pyStr(paid())}`;
    }

    const owned = users.mut(userId);
    const ownedMethods = pyGet(owned, 'payment_methods');
    for (const paymentMethod of pyIter(paymentMethods)) {
      const paymentId = pyGet(paymentMethod, 'payment_id');
      const amount = pyGet(paymentMethod, 'amount');
      const method = pyGet(ownedMethods, paymentId);
      if (pyEq(pyGet(method, 'source'), 'gift_card'))
        pySet(method, 'amount', pySub(pyGet(method, 'amount'), amount, '-='));
      else if (pyEq(pyGet(method, 'source'), 'certificate')) pyDel(ownedMethods, paymentId);
    }
    reservations.set(reservationId, reservation);
    pyAppend(pyGet(owned, 'reservations'), reservationId);
    return pyJsonDumps(reservation);
  },
};

const cancelReservation: TauToolImpl = {
  name: 'cancel_reservation',
  params: ['reservation_id'],
  run(data, [reservationId]) {
    const reservations = data.table('reservations');
    if (!reservations.has(reservationId)) return 'Error: reservation not found';
    const reservation = reservations.mut(reservationId);
    const refunds: PyValue[] = [];
    for (const payment of pyIter(pyGet(reservation, 'payment_history'))) {
      refunds.push(
        new Map<string, PyValue>([
          ['payment_id', pyGet(payment, 'payment_id')],
          ['amount', pyNeg(pyGet(payment, 'amount'))],
        ]),
      );
    }
    pyExtend(pyGet(reservation, 'payment_history'), refunds);
    pySet(reservation, 'status', 'cancelled');
    return pyJsonDumps(reservation);
  },
};

const getReservationDetails: TauToolImpl = {
  name: 'get_reservation_details',
  params: ['reservation_id'],
  run(data, [reservationId]) {
    const reservations = data.table('reservations');
    if (reservations.has(reservationId)) return pyJsonDumps(reservations.get(reservationId));
    return 'Error: user not found'; // sic: the original's wording for a missing reservation
  },
};

const getUserDetails: TauToolImpl = {
  name: 'get_user_details',
  params: ['user_id'],
  run(data, [userId]) {
    const users = data.table('users');
    if (users.has(userId)) return pyJsonDumps(users.get(userId));
    return 'Error: user not found';
  },
};

const AIRPORTS = pyJsonDumps(
  new Map<string, PyValue>([
    ['SFO', 'San Francisco'],
    ['JFK', 'New York'],
    ['LAX', 'Los Angeles'],
    ['ORD', 'Chicago'],
    ['DFW', 'Dallas'],
    ['DEN', 'Denver'],
    ['SEA', 'Seattle'],
    ['ATL', 'Atlanta'],
    ['MIA', 'Miami'],
    ['BOS', 'Boston'],
    ['PHX', 'Phoenix'],
    ['IAH', 'Houston'],
    ['LAS', 'Las Vegas'],
    ['MCO', 'Orlando'],
    ['EWR', 'Newark'],
    ['CLT', 'Charlotte'],
    ['MSP', 'Minneapolis'],
    ['DTW', 'Detroit'],
    ['PHL', 'Philadelphia'],
    ['LGA', 'LaGuardia'],
  ]),
);

const listAllAirports: TauToolImpl = { name: 'list_all_airports', params: [], run: () => AIRPORTS };

const searchDirectFlight: TauToolImpl = {
  name: 'search_direct_flight',
  params: ['origin', 'destination', 'date'],
  run(data, [origin, destination, date]) {
    const results: PyValue[] = [];
    for (const flight of data.table('flights').values()) {
      if (pyEq(pyGet(flight, 'origin'), origin) && pyEq(pyGet(flight, 'destination'), destination)) {
        const dates = pyGet(flight, 'dates');
        if (pyIn(date, dates) && pyEq(pyGet(pyGet(dates, date), 'status'), 'available')) {
          const result = pyDictWithout(flight, 'dates');
          pyUpdate(result, pyGet(dates, date));
          results.push(result);
        }
      }
    }
    return pyJsonDumps(results);
  },
};

const searchOnestopFlight: TauToolImpl = {
  name: 'search_onestop_flight',
  params: ['origin', 'destination', 'date'],
  run(data, [origin, destination, date]) {
    const flights = [...data.table('flights').values()];
    const results: PyValue[] = [];
    for (const flight1 of flights) {
      if (!pyEq(pyGet(flight1, 'origin'), origin)) continue;
      for (const flight2 of flights) {
        if (!(
          pyEq(pyGet(flight2, 'destination'), destination) &&
          pyEq(pyGet(flight1, 'destination'), pyGet(flight2, 'origin'))
        ))
          continue;
        // the original builds the next day without zero padding ("2024-05-1" + ...) and only within May
        const date2 = pyIn('+1', pyGet(flight1, 'scheduled_arrival_time_est'))
          ? `2024-05-${pyStr(pyAdd(pyIntOfStr(lastTwo(date)), 1))}`
          : date;
        // times compare as strings, as in the original
        if (
          pyCompare('>', pyGet(flight1, 'scheduled_arrival_time_est'), pyGet(flight2, 'scheduled_departure_time_est'))
        )
          continue;
        const dates1 = pyGet(flight1, 'dates');
        const dates2 = pyGet(flight2, 'dates');
        if (pyIn(date, dates1) && pyIn(date2, dates2)) {
          if (
            pyEq(pyGet(pyGet(dates1, date), 'status'), 'available') &&
            pyEq(pyGet(pyGet(dates2, date2), 'status'), 'available')
          ) {
            const result1 = pyDictWithout(flight1, 'dates');
            pyUpdate(result1, pyGet(dates1, date));
            result1.set('date', date);
            const result2 = pyDictWithout(flight2, 'dates');
            pyUpdate(result2, pyGet(dates2, date)); // sic: the original reads the second flight's data at the FIRST date
            result2.set('date', date2);
            results.push([result1, result2]);
          }
        }
      }
    }
    return pyJsonDumps(results);
  },
};

/** `date[-2:]`. */
function lastTwo(date: PyValue): PyValue {
  if (typeof date === 'string') return [...date].slice(-2).join('');
  if (Array.isArray(date)) return date.slice(-2);
  return pyGet(date, -2); // raises the original's "not subscriptable" TypeError
}

const CERTIFICATE_IDS = [3221322, 3221323, 3221324];

const sendCertificate: TauToolImpl = {
  name: 'send_certificate',
  params: ['user_id', 'amount'],
  run(data, [userId, amount]) {
    const users = data.table('users');
    if (!users.has(userId)) return 'Error: user not found';
    const methods = pyGet(users.get(userId), 'payment_methods');
    // the original assumes at most 3 certificates per task and returns None on a fourth
    for (const id of CERTIFICATE_IDS) {
      const paymentId = `certificate_${id}`;
      if (!pyIn(paymentId, methods)) {
        const owned = pyGet(users.mut(userId), 'payment_methods');
        pySet(
          owned,
          paymentId,
          new Map<string, PyValue>([
            ['source', 'certificate'],
            ['amount', amount],
            ['id', paymentId],
          ]),
        );
        return `Certificate ${paymentId} added to user ${pyStr(userId)} with amount ${pyStr(amount)}.`;
      }
    }
    return null;
  },
};

/** A reservation's payment change (baggage or flights): checks the method as the original does. */
function checkPayment(methods: PyValue, paymentId: PyValue, totalPrice: PyValue): string | undefined {
  if (!pyIn(paymentId, methods)) return 'Error: payment method not found';
  const method = pyGet(methods, paymentId);
  if (pyEq(pyGet(method, 'source'), 'certificate')) return 'Error: certificate cannot be used to update reservation';
  if (pyEq(pyGet(method, 'source'), 'gift_card') && pyCompare('<', pyGet(method, 'amount'), totalPrice)) {
    return 'Error: gift card balance is not enough';
  }
  return undefined;
}

/** Deducts from a gift card in the session's own copy of the reservation's user. */
function chargeGiftCard(data: TauData, reservation: PyValue, paymentId: PyValue, totalPrice: PyValue): void {
  const method = pyGet(paymentMethodsOf(data, reservation), paymentId);
  if (!pyEq(pyGet(method, 'source'), 'gift_card')) return;
  const owned = pyGet(pyGet(data.table('users').mut(pyGet(reservation, 'user_id')), 'payment_methods'), paymentId);
  pySet(owned, 'amount', pySub(pyGet(owned, 'amount'), totalPrice, '-='));
}

const updateReservationBaggages: TauToolImpl = {
  name: 'update_reservation_baggages',
  params: ['reservation_id', 'total_baggages', 'nonfree_baggages', 'payment_id'],
  run(data, [reservationId, totalBaggages, nonfreeBaggages, paymentId]) {
    const reservations = data.table('reservations');
    if (!reservations.has(reservationId)) return 'Error: reservation not found';
    const reservation = reservations.get(reservationId);
    const totalPrice = pyMul(50, pyMax(0, pySub(nonfreeBaggages, pyGet(reservation, 'nonfree_baggages'))));
    const failed = checkPayment(paymentMethodsOf(data, reservation), paymentId, totalPrice);
    if (failed) return failed;
    const owned = reservations.mut(reservationId);
    pySet(owned, 'total_baggages', totalBaggages);
    pySet(owned, 'nonfree_baggages', nonfreeBaggages);
    chargeGiftCard(data, owned, paymentId, totalPrice);
    if (!pyEq(totalPrice, 0)) {
      pyAppend(
        pyGet(owned, 'payment_history'),
        new Map<string, PyValue>([
          ['payment_id', paymentId],
          ['amount', totalPrice],
        ]),
      );
    }
    return pyJsonDumps(owned);
  },
};

const updateReservationFlights: TauToolImpl = {
  name: 'update_reservation_flights',
  params: ['reservation_id', 'cabin', 'flights', 'payment_id'],
  run(data, [reservationId, cabin, flightsArg, paymentId]) {
    const reservations = data.table('reservations');
    if (!reservations.has(reservationId)) return 'Error: reservation not found';
    const reservation = reservations.get(reservationId);
    const flightTable = data.table('flights');
    let totalPrice: PyValue = 0;
    const flights = pyDeepCopy(flightsArg);
    for (const flight of pyIter(flights)) {
      // a segment already in the reservation (same number, date and cabin) keeps its price
      const same: PyValue[] = [];
      for (const f of pyIter(pyGet(reservation, 'flights'))) {
        if (
          pyEq(pyGet(f, 'flight_number'), pyGet(flight, 'flight_number')) &&
          pyEq(pyGet(f, 'date'), pyGet(flight, 'date')) &&
          pyEq(cabin, pyGet(reservation, 'cabin'))
        )
          same.push(f);
      }
      if (same.length) {
        const kept = same[0];
        totalPrice = pyAdd(totalPrice, pyMul(pyGet(kept, 'price'), pyLen(pyGet(reservation, 'passengers'))), '+=');
        pySet(flight, 'price', pyGet(kept, 'price'));
        pySet(flight, 'origin', pyGet(kept, 'origin'));
        pySet(flight, 'destination', pyGet(kept, 'destination'));
        continue;
      }
      const priced = priceFlight(flightTable, flight, cabin, pyLen(pyGet(reservation, 'passengers')));
      if (typeof priced === 'string') return priced;
      totalPrice = pyAdd(totalPrice, priced, '+=');
    }
    const oldTotal = pySum(pyIter(pyGet(reservation, 'flights')).map((f) => pyGet(f, 'price')));
    totalPrice = pySub(totalPrice, pyMul(oldTotal, pyLen(pyGet(reservation, 'passengers'))), '-=');
    const failed = checkPayment(paymentMethodsOf(data, reservation), paymentId, totalPrice);
    if (failed) return failed;
    const owned = reservations.mut(reservationId);
    chargeGiftCard(data, owned, paymentId, totalPrice);
    pySet(owned, 'flights', flights);
    if (!pyEq(totalPrice, 0)) {
      pyAppend(
        pyGet(owned, 'payment_history'),
        new Map<string, PyValue>([
          ['payment_id', paymentId],
          ['amount', totalPrice],
        ]),
      );
    }
    // the original does not update seat counts here ("assume it takes time to be updated")
    return pyJsonDumps(owned);
  },
};

const updateReservationPassengers: TauToolImpl = {
  name: 'update_reservation_passengers',
  params: ['reservation_id', 'passengers'],
  run(data, [reservationId, passengers]) {
    const reservations = data.table('reservations');
    if (!reservations.has(reservationId)) return 'Error: reservation not found';
    const reservation = reservations.get(reservationId);
    if (pyLen(passengers) !== pyLen(pyGet(reservation, 'passengers')))
      return 'Error: number of passengers does not match';
    const owned = reservations.mut(reservationId);
    pySet(owned, 'passengers', passengers);
    return pyJsonDumps(owned);
  },
};

/** The airline tools by name (the order of the schemas comes from the original's ALL_TOOLS, not from here). */
export const AIRLINE_TOOLS: readonly TauToolImpl[] = [
  bookReservation,
  calculateTool,
  cancelReservation,
  getReservationDetails,
  getUserDetails,
  listAllAirports,
  searchDirectFlight,
  searchOnestopFlight,
  sendCertificate,
  thinkTool,
  transferTool,
  updateReservationBaggages,
  updateReservationFlights,
  updateReservationPassengers,
];

/**
 * One flight of a booking or a flight change, as both tools of the original check and price it: the flight must
 * exist, fly that date, be available there and have `seats` seats in `cabin`; it then gets its price, origin and
 * destination. The `Error: ...` result of a failed check, or what the flight adds to the total (price x seats).
 */
function priceFlight(
  flightTable: ReturnType<TauData['table']>,
  flight: PyValue,
  cabin: PyValue,
  seats: number,
): string | PyValue {
  const flightNumber = pyGet(flight, 'flight_number');
  if (!flightTable.has(flightNumber)) return `Error: flight ${pyStr(flightNumber)} not found`;
  const flightData = flightTable.get(flightNumber);
  if (!pyIn(pyGet(flight, 'date'), pyGet(flightData, 'dates'))) {
    return `Error: flight ${pyStr(flightNumber)} not found on date ${pyStr(pyGet(flight, 'date'))}`;
  }
  const flightDateData = pyGet(pyGet(flightData, 'dates'), pyGet(flight, 'date'));
  if (!pyEq(pyGet(flightDateData, 'status'), 'available')) {
    return `Error: flight ${pyStr(flightNumber)} not available on date ${pyStr(pyGet(flight, 'date'))}`;
  }
  if (pyCompare('<', pyGet(pyGet(flightDateData, 'available_seats'), cabin), seats))
    return `Error: not enough seats on flight ${pyStr(flightNumber)}`;
  pySet(flight, 'price', pyGet(pyGet(flightDateData, 'prices'), cabin));
  pySet(flight, 'origin', pyGet(flightData, 'origin'));
  pySet(flight, 'destination', pyGet(flightData, 'destination'));
  return pyMul(pyGet(flight, 'price'), seats);
}
