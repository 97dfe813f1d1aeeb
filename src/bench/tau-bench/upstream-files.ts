/**
 * The upstream files this port reads, pinned: sierra-research/tau-bench at commit 59a200c (MIT, "Copyright (c) 2024
 * Sierra"). They are installed by `qitos tau-bench fetch` (never committed here) and every read re-checks its sha256.
 */
export const TAU_BENCH_REPO = 'sierra-research/tau-bench';
export const TAU_BENCH_COMMIT = '59a200c6d575d595120f1cb70fea53cef0632f6b';

/** One upstream file: its path in the repository, sha256 of its bytes and size. */
export interface UpstreamFile {
  path: string;
  sha256: string;
  size: number;
}

/** Every file installed, LICENSE first. */
export const UPSTREAM_FILES: readonly UpstreamFile[] = [
  { path: 'LICENSE', sha256: '243d23d45b80122b5ac575586ccef352fdc9c45e6d7d2605449aca8a17478b42', size: 1063 },
  {
    path: 'tau_bench/envs/airline/data/flights.json',
    sha256: '444d7565c68434a3e3fb72efd717f9f9cd5c56dce227f6f56e078f1cb0ed233a',
    size: 2114218,
  },
  {
    path: 'tau_bench/envs/airline/data/reservations.json',
    sha256: '1cf0bbc58ad984be9de7c24dba6dd27393f94cdbd482d8524f6a54db1f561a8c',
    size: 2325594,
  },
  {
    path: 'tau_bench/envs/airline/data/users.json',
    sha256: 'bd264e2a31e0fa35cdfef8987e70a0dd3776828b582fe90e7a44823a12eb4cea',
    size: 595947,
  },
  {
    path: 'tau_bench/envs/airline/rules.py',
    sha256: 'da3d5a5db6ddbf3d0071e5ece8d9297ccf89914ded93c8187043c5eecf58adfc',
    size: 31,
  },
  {
    path: 'tau_bench/envs/airline/tasks_test.py',
    sha256: '14cdb6b4fe810faac9a0cc8395d3c7b32c883a979d1cde8c8003ae25a93d2ff3',
    size: 67250,
  },
  {
    path: 'tau_bench/envs/airline/tools/book_reservation.py',
    sha256: '927ca66e6bf289d27582c939d7300ee028ed0a237e2592afed160265f9953304',
    size: 10282,
  },
  {
    path: 'tau_bench/envs/airline/tools/calculate.py',
    sha256: '3be497428304817e4dae17222dc9d1d41a27d28bf0abc2a613687a6e890d70fe',
    size: 1266,
  },
  {
    path: 'tau_bench/envs/airline/tools/cancel_reservation.py',
    sha256: '5dd83916f9dce20a4bac6ecf45c2f4555ae28f0981339c7d237d3f98af2e6b98',
    size: 1528,
  },
  {
    path: 'tau_bench/envs/airline/tools/get_reservation_details.py',
    sha256: '3c45957d9489e4226000de99f015c67ca5cc920f867c5a5739edba20cd920b6b',
    size: 1082,
  },
  {
    path: 'tau_bench/envs/airline/tools/get_user_details.py',
    sha256: '50cd80bee1fa2da99852ebd37289964f0b5f34994d9f34104f7d6953216fa7c4',
    size: 1028,
  },
  {
    path: 'tau_bench/envs/airline/tools/list_all_airports.py',
    sha256: '8c6921b793ce6e93bfa18024e40fa1136f8c4e8204f8fa6f0248beaf674651ba',
    size: 1633,
  },
  {
    path: 'tau_bench/envs/airline/tools/search_direct_flight.py',
    sha256: 'ca64bab422da436c0ab9e3a77135f786ca934e8cb917d502f0dbab2847716c78',
    size: 2014,
  },
  {
    path: 'tau_bench/envs/airline/tools/search_onestop_flight.py',
    sha256: '205b32a28de70bff29f8846c875964af78c6d6d94685bf79579861b3308efa3d',
    size: 3240,
  },
  {
    path: 'tau_bench/envs/airline/tools/send_certificate.py',
    sha256: 'd067a526d0a3579cd4a814fa14d231a62da4854520124ff2af8969f16715a773',
    size: 1765,
  },
  {
    path: 'tau_bench/envs/airline/tools/think.py',
    sha256: 'ff2b17409d3d6fade8657e2ada46b0b50e33c6570502cba4ec0202652c51ffa5',
    size: 980,
  },
  {
    path: 'tau_bench/envs/airline/tools/transfer_to_human_agents.py',
    sha256: 'd3f105f8a8efc11e8dbb039b12e9e1d86d7c1f1ae16a26bd2bbf41cde2b21db6',
    size: 1144,
  },
  {
    path: 'tau_bench/envs/airline/tools/update_reservation_baggages.py',
    sha256: '5b72dc0fcd0a2ae21bb116ddc0a76dcc5d2fc2c71dec1fae75942f24f5d6eafd',
    size: 3268,
  },
  {
    path: 'tau_bench/envs/airline/tools/update_reservation_flights.py',
    sha256: '58ef41d20d5ba53782dce1bbcbd514aaa6fcb0670980f54070d8263ab9f8b985',
    size: 6070,
  },
  {
    path: 'tau_bench/envs/airline/tools/update_reservation_passengers.py',
    sha256: '6ed46b57dc3c6c487219720a10f116774686046f11868c747493ae9a703d2957',
    size: 2712,
  },
  {
    path: 'tau_bench/envs/airline/wiki.md',
    sha256: '56c335801c16e26b54f600f9db99eb04d31db477e86eb160341d5c66b796c5c8',
    size: 6155,
  },
  {
    path: 'tau_bench/envs/retail/data/orders.json',
    sha256: '2598a12586d28f2d6bd16bc86f4c800029b6af18e0abb5c475ef5c869c11ced1',
    size: 1810945,
  },
  {
    path: 'tau_bench/envs/retail/data/products.json',
    sha256: 'a9eabcc1a9742c5f5288c2779acce52b9308423383ed24706bbaf0889f762a0f',
    size: 172258,
  },
  {
    path: 'tau_bench/envs/retail/data/users.json',
    sha256: '6f4fd104cc5e80b92166c4035315c31532c6cea52a90dcdf18425ee7f87c2b82',
    size: 322932,
  },
  {
    path: 'tau_bench/envs/retail/rules.py',
    sha256: 'f4450639d5a21713953685e0a430b8cfd4f359db3fdd4de45ff228449b05c812',
    size: 970,
  },
  {
    path: 'tau_bench/envs/retail/tasks_dev.py',
    sha256: '87dfe578d0271e7b0b5dfb40621a5c0dcc0e8452a75b8f3f8d1dcf0abac4ff14',
    size: 19326,
  },
  {
    path: 'tau_bench/envs/retail/tasks_test.py',
    sha256: '6f09468923c6cfb6162e94fe659264d6aee70816c18d51278fb4a581db7765a4',
    size: 169476,
  },
  {
    path: 'tau_bench/envs/retail/tasks_train.py',
    sha256: '30880ce4e8d524dd0fdd18c1d3a5713551fc8638e82673de3e0fd1ab70046c6f',
    size: 471974,
  },
  {
    path: 'tau_bench/envs/retail/tools/calculate.py',
    sha256: '2c3380802673493843ef6d7f3e569e2aed52265ca0b9f7ac248346828d0c75f7',
    size: 1324,
  },
  {
    path: 'tau_bench/envs/retail/tools/cancel_pending_order.py',
    sha256: 'c33151a896b62ac87ed1bcbcbd62dabcd47c8c1eaf47bbb5e2f15f8b6283b19d',
    size: 3320,
  },
  {
    path: 'tau_bench/envs/retail/tools/exchange_delivered_order_items.py',
    sha256: 'd547d44b28e97513d4a15714d4bd2bbca13f76827bfe06b71e1b51a742f44489',
    size: 5370,
  },
  {
    path: 'tau_bench/envs/retail/tools/find_user_id_by_email.py',
    sha256: 'a289f00eb689146f102d97951d6e7b29c9c639314c203efbfcd888f893d91560',
    size: 1132,
  },
  {
    path: 'tau_bench/envs/retail/tools/find_user_id_by_name_zip.py',
    sha256: '22c176ffc285b25db573e0e38d82d678e2641298c6d1318f69d2582d52eb7433',
    size: 2013,
  },
  {
    path: 'tau_bench/envs/retail/tools/get_order_details.py',
    sha256: 'ca6c23cc89c1e981251b9adb1e6d705e364ff942aee986b12335b36e94281056',
    size: 1087,
  },
  {
    path: 'tau_bench/envs/retail/tools/get_product_details.py',
    sha256: '9578fb31b5e092361a5d0e5d4a8e2afe4b8fb4a96d279d031b01266d9b5c768d',
    size: 1104,
  },
  {
    path: 'tau_bench/envs/retail/tools/get_user_details.py',
    sha256: 'f22b59126c2a2aaa102f39dea778653a9298d1902477dd5246509d019318e8d3',
    size: 1021,
  },
  {
    path: 'tau_bench/envs/retail/tools/list_all_product_types.py',
    sha256: '63b9f562f893bab36fc6fb91da92978ba9c106f2d6fad88aee3ca20801e4a2e3',
    size: 1035,
  },
  {
    path: 'tau_bench/envs/retail/tools/modify_pending_order_address.py',
    sha256: '8f23d24511078ca10818fac8501db358ad699584952233d696a695e78993d001',
    size: 3212,
  },
  {
    path: 'tau_bench/envs/retail/tools/modify_pending_order_items.py',
    sha256: 'f1a39d42e42c162dc961afa7f1b4d29c73c5a3710a3b9dff318a076213b6c858',
    size: 5707,
  },
  {
    path: 'tau_bench/envs/retail/tools/modify_pending_order_payment.py',
    sha256: '6c2d4c329fae0d66d50bd48cb6ae9520167137f8b20d3385fa407aa5b03d2fe5',
    size: 4364,
  },
  {
    path: 'tau_bench/envs/retail/tools/modify_user_address.py',
    sha256: 'b1f8ac2141056ccee668824d6ab124ce659ea3574e7b186b39af3f558c07ac61',
    size: 2920,
  },
  {
    path: 'tau_bench/envs/retail/tools/return_delivered_order_items.py',
    sha256: '7d92e8962c17e5fa9c8e3240d21e31fc1adf5e68100c92bb0f67e0a67ea5b7bf',
    size: 3632,
  },
  {
    path: 'tau_bench/envs/retail/tools/think.py',
    sha256: '9d9423922fcdc98578c1d6544f35d28ff155e9a5a172355b662db326ef7eb1fc',
    size: 1160,
  },
  {
    path: 'tau_bench/envs/retail/tools/transfer_to_human_agents.py',
    sha256: '2b6d4685da53f72709b28b60e14e1897947ac366bc7ecee6d2b7c7169a3d95a6',
    size: 1200,
  },
  {
    path: 'tau_bench/envs/retail/wiki.md',
    sha256: 'd539fd2a46a8b8dd2e934ff9ed92f43e9f6b56bc7a718db8d2803ba8ad8f6bf7',
    size: 5718,
  },
];

/** Where each domain's pieces are, in the original's order (`ALL_TOOLS`, `load_data`'s tables, the env's splits). */
export interface UpstreamDomainLayout {
  root: string;
  /** Table name in `data` -> JSON file, in `load_data()`'s order. */
  tables: readonly [string, string][];
  /** Split -> [tasks file, the list variable it assigns]. */
  splits: readonly [string, string, string][];
  /** Tool modules in `ALL_TOOLS` order. */
  tools: readonly string[];
}

export const UPSTREAM_LAYOUT: Readonly<Record<'airline' | 'retail', UpstreamDomainLayout>> = {
  airline: {
    root: 'tau_bench/envs/airline',
    tables: [
      ['flights', 'data/flights.json'],
      ['reservations', 'data/reservations.json'],
      ['users', 'data/users.json'],
    ],
    splits: [['test', 'tasks_test.py', 'TASKS']],
    tools: [
      'book_reservation',
      'calculate',
      'cancel_reservation',
      'get_reservation_details',
      'get_user_details',
      'list_all_airports',
      'search_direct_flight',
      'search_onestop_flight',
      'send_certificate',
      'think',
      'transfer_to_human_agents',
      'update_reservation_baggages',
      'update_reservation_flights',
      'update_reservation_passengers',
    ],
  },
  retail: {
    root: 'tau_bench/envs/retail',
    tables: [
      ['orders', 'data/orders.json'],
      ['products', 'data/products.json'],
      ['users', 'data/users.json'],
    ],
    splits: [
      ['test', 'tasks_test.py', 'TASKS_TEST'],
      ['train', 'tasks_train.py', 'TASKS_TRAIN'],
      ['dev', 'tasks_dev.py', 'TASKS_DEV'],
    ],
    tools: [
      'calculate',
      'cancel_pending_order',
      'exchange_delivered_order_items',
      'find_user_id_by_email',
      'find_user_id_by_name_zip',
      'get_order_details',
      'get_product_details',
      'get_user_details',
      'list_all_product_types',
      'modify_pending_order_address',
      'modify_pending_order_items',
      'modify_pending_order_payment',
      'modify_user_address',
      'return_delivered_order_items',
      'think',
      'transfer_to_human_agents',
    ],
  },
};
