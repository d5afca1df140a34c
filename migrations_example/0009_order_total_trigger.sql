-- A function body with semicolons inside $$ quotes is one statement.
CREATE FUNCTION record_order_status() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO order_status_history (order_id, status) VALUES (NEW.id, NEW.status);
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER orders_status_history
    AFTER UPDATE OF status ON orders
    FOR EACH ROW EXECUTE FUNCTION record_order_status();
