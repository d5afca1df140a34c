-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-insert.html (INSERT ... SELECT reads the source under ACCESS SHARE only); the target table is created in this file
-- verified: PG15: orders only read (1 seq scan, AccessShareLock); new table created and filled; no lock beyond ACCESS SHARE on orders
-- given: CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id bigint NOT NULL, total numeric(12,2) NOT NULL, placed_at timestamptz NOT NULL);
CREATE TABLE customer_order_stats (
    customer_id bigint PRIMARY KEY,
    order_count integer NOT NULL,
    lifetime_total numeric(14,2) NOT NULL,
    refreshed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO customer_order_stats (customer_id, order_count, lifetime_total)
SELECT customer_id, count(*), sum(total)
FROM orders
GROUP BY customer_id
ON CONFLICT (customer_id) DO NOTHING;
