-- A constant default is a catalog-only change since PostgreSQL 11: no table rewrite, but it
-- still needs an ACCESS EXCLUSIVE lock for a moment. The lock_timeout guard and retries make
-- sure it never queues in front of the application for long.
-- safemigrate: lock-timeout=1s max-attempts=20
ALTER TABLE customers ADD COLUMN loyalty_points integer NOT NULL DEFAULT 0;
