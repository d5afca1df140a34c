-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-update.html (only rows satisfying WHERE are updated)
-- verified: PG15: both statements succeed; only rows matching the WHERE are touched; no relfilenode change
-- given: CREATE TABLE subscriptions (id bigserial PRIMARY KEY, plan text NOT NULL, status text NOT NULL, cancelled_at timestamptz);
-- given: CREATE INDEX subscriptions_plan_idx ON subscriptions (plan);
-- retire the 'legacy-basic' plan (about 40 rows)
UPDATE subscriptions
   SET plan = 'basic-2026'
 WHERE plan = 'legacy-basic'
   AND status <> 'cancelled';
DELETE FROM subscriptions WHERE plan = 'internal-test' AND cancelled_at < now() - interval '1 year';
