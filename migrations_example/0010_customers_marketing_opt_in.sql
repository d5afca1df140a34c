-- safemigrate: no-retry
ALTER TABLE customers ADD COLUMN marketing_opt_in boolean NOT NULL DEFAULT false;

CREATE INDEX customers_created_at_idx ON customers (created_at);
