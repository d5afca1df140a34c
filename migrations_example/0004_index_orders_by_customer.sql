-- A plain CREATE INDEX on a table that already exists would block writes to orders for the
-- whole build. safemigrate runs it as CREATE INDEX CONCURRENTLY and says so in its log.
CREATE INDEX orders_customer_id_idx ON orders (customer_id);
