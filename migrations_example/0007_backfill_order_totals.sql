ALTER TABLE orders ADD COLUMN total_cents bigint;

-- The backfill and its bookkeeping must land together: one transaction for both statements.
-- safemigrate: group-start statement-timeout=5min
UPDATE orders o
SET total_cents = (
    SELECT coalesce(sum(i.quantity * p.price_cents), 0)
    FROM order_items i JOIN products p ON p.id = i.product_id
    WHERE i.order_id = o.id
)
WHERE o.total_cents IS NULL;

UPDATE orders SET status = 'priced' WHERE status = 'new' AND total_cents IS NOT NULL;
-- safemigrate: group-end
